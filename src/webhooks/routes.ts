import type { Module } from '../deps';

// Filled in by the webhooks issue.
const webhooksModule: Module = async () => {};

export default webhooksModule;
