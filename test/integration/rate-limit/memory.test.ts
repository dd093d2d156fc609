import { describeStoreContract } from './store-contract.js';

describeStoreContract('the memory store', () => ({ config: { kind: 'memory' }, sibling: null }));
