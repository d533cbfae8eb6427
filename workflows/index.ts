export { runWorkflow } from './run-workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { scheduledTriggerWorkflow } from './scheduled-trigger';
export { sampleExpiryWorkflow } from './sample-expiry';
