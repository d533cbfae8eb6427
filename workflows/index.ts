export { runWorkflow } from './run-workflow';
