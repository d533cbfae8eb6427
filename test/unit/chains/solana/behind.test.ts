import { describe, expect, it } from 'vitest';
import { CHAINS } from '../../../../src/chains/registry';
import { classifyResponse } from '../../../../src/probe/classify-response';

const BEHIND = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: 7 } } });

describe('"behind" answers', () => {
  it('a Solana -32016 is behind, with its code; other Solana RPC errors stay rpc_error', () => {
    expect(classifyResponse(CHAINS.solana, 200, BEHIND, 'getBalance')).toEqual({ outcome: 'behind', rpcErrorCode: -32016, responseHash: null, reason: null });
    const other = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params' } });
    expect(classifyResponse(CHAINS.solana, 200, other, 'getBalance')).toEqual({ outcome: 'rpc_error', rpcErrorCode: -32602, responseHash: null, reason: null });
  });

  it('the same code on a family that declares none is an rpc_error', () => {
    expect(CHAINS.evm.rpcErrorOutcome({ code: -32016, message: 'x', data: undefined })).toBe('rpc_error');
    expect(classifyResponse(CHAINS.evm, 200, BEHIND, 'eth_getBalance')).toEqual({ outcome: 'rpc_error', rpcErrorCode: -32016, responseHash: null, reason: null });
    expect(classifyResponse(CHAINS.bitcoin, 200, JSON.stringify({ result: null, error: { code: -32016, message: 'x' }, id: 1 }), 'getblock').outcome).toBe('rpc_error');
  });
});
