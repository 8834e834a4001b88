import type { Module } from '../deps';

// Filled in by the pages issue.
const pagesModule: Module = async () => {};

export default pagesModule;
