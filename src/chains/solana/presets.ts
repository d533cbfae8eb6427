import type { ChainPreset, WorkloadPreset } from '../../domain/catalog-presets';
import { contextTemplate } from '../../domain/workload';
import { COMMITMENT_TEMPLATE, PINNED_SIGNATURE, PINNED_SLOT_TEMPLATE, VOTE_PROGRAM } from './head';

/*
 * The Solana family's built-in catalog rows: the three public clusters. No chain id (a cluster is
 * told by its genesis hash, getGenesisHash).
 */

export const SOLANA_CHAIN_PRESETS: readonly ChainPreset[] = [
  { id: '0c0a1a00-0000-4000-8000-0000000c0001', slug: 'solana-mainnet-beta', name: 'Solana Mainnet Beta', family: 'solana', chain_id: null, explorer_url: 'https://explorer.solana.com' },
  { id: '0c0a1a00-0000-4000-8000-0000000c0002', slug: 'solana-devnet', name: 'Solana Devnet', family: 'solana', chain_id: null, explorer_url: 'https://explorer.solana.com/?cluster=devnet' },
  { id: '0c0a1a00-0000-4000-8000-0000000c0003', slug: 'solana-testnet', name: 'Solana Testnet', family: 'solana', chain_id: null, explorer_url: 'https://explorer.solana.com/?cluster=testnet' },
];

/** Accounts that exist with the same content on every cluster and never change: native programs. */
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const SIGNATURE = contextTemplate(PINNED_SIGNATURE);
const FINALIZED = { commitment: 'finalized' } as const;
/** The suite's commitment level (config.commitment, finalized when it names none). */
const AT_LEVEL = { commitment: COMMITMENT_TEMPLATE } as const;

export const SOLANA_WORKLOAD_PRESETS: readonly WorkloadPreset[] = [
  {
    id: '0c0a1a00-0000-4000-8000-0000000c0101',
    slug: 'solana-standard',
    name: 'Solana standard read mix',
    family: 'solana',
    description:
      'The reads wallets, explorers and indexers make most, on any Solana cluster. getBlock reads the pinned ' +
      'finalized slot (maxSupportedTransactionVersion 0, signatures only) and getTransaction a finalized vote ' +
      'transaction read from the reference at planning time: both are compared exactly. Account reads ' +
      '(getBalance, getAccountInfo and getMultipleAccounts in base64, getTokenAccountsByOwner) read native ' +
      'programs, which do not change; they are compared by value without their context slot. Tip reads ' +
      '(getSlot, getBlockHeight, getEpochInfo, getSignaturesForAddress, getSignatureStatuses) are compared with ' +
      'the head-moved excuse, getLatestBlockhash by shape. getProgramAccounts is not included (it is heavy, and ' +
      'many providers refuse it): add it to a copy of this preset with a filter of your own. A pinned slot that ' +
      'was skipped answers an RPC error on every node. Tip and account reads are made at the suite\'s commitment ' +
      '(config.commitment, finalized by default); getBlock, getTransaction and getSignaturesForAddress always at ' +
      'finalized (they refuse processed).',
    workload: {
      methods: [
        { method: 'getSlot', params: [AT_LEVEL], weight: 10 },
        { method: 'getBlockHeight', params: [AT_LEVEL], weight: 5 },
        { method: 'getLatestBlockhash', params: [AT_LEVEL], weight: 10 },
        { method: 'getEpochInfo', params: [AT_LEVEL], weight: 5 },
        { method: 'getBalance', params: [TOKEN_PROGRAM, AT_LEVEL], weight: 15 },
        { method: 'getAccountInfo', params: [TOKEN_PROGRAM, { ...AT_LEVEL, encoding: 'base64', dataSlice: { offset: 0, length: 64 } }], weight: 10 },
        { method: 'getMultipleAccounts', params: [[SYSTEM_PROGRAM, TOKEN_PROGRAM, VOTE_PROGRAM], { ...AT_LEVEL, encoding: 'base64', dataSlice: { offset: 0, length: 64 } }], weight: 10 },
        {
          method: 'getBlock',
          params: [PINNED_SLOT_TEMPLATE, { ...FINALIZED, encoding: 'json', maxSupportedTransactionVersion: 0, transactionDetails: 'signatures', rewards: false }],
          weight: 10,
        },
        { method: 'getTransaction', params: [SIGNATURE, { ...FINALIZED, encoding: 'json', maxSupportedTransactionVersion: 0 }], weight: 10 },
        { method: 'getSignaturesForAddress', params: [TOKEN_PROGRAM, { ...FINALIZED, limit: 10 }], weight: 5 },
        { method: 'getSignatureStatuses', params: [[SIGNATURE], { searchTransactionHistory: true }], weight: 5 },
        { method: 'getTokenAccountsByOwner', params: [SYSTEM_PROGRAM, { programId: TOKEN_PROGRAM }, { ...AT_LEVEL, encoding: 'base64' }], weight: 5 },
      ],
    },
  },
];
