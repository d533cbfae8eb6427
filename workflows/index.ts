export { runWorkflow } from './run-workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery';
