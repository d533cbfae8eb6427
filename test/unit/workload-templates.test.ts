import { describe, expect, it } from 'vitest';
import { createPlanner, templateParams, usesPinnedBlock, type RenderPinned } from '../../src/domain/workload';

/* A family's extra template strings (ChainAdapter.pinnedTemplates), rendered from the same pinned block. */

const hex: RenderPinned = (pinned) => (pinned === null ? 'latest' : `0x${pinned.toString(16)}`);
const templates = { '{{pinned_height}}': (pinned: number | null) => pinned, '{{pinned_label}}': (pinned: number | null) => `block ${pinned}` };

describe('family templates', () => {
  it('replaces every string naming a template, at any depth, beside {{pinned_block}}', () => {
    const params = ['{{pinned_height}}', { at: '{{pinned_block}}', list: ['{{pinned_label}}', 'x'] }, 3];
    expect(templateParams(params, 255, hex, templates)).toEqual([255, { at: '0xff', list: ['block 255', 'x'] }, 3]);
    // Without them, the strings stay what they are.
    expect(templateParams(params, 255, hex)).toEqual(['{{pinned_height}}', { at: '0xff', list: ['{{pinned_label}}', 'x'] }, 3]);
    // Only whole strings are templates, and only the family's own (no prototype names).
    expect(templateParams(['at {{pinned_height}}', 'constructor', '__proto__'], 1, hex, templates)).toEqual(['at {{pinned_height}}', 'constructor', '__proto__']);
  });

  it('the planner sends the rendered params', () => {
    const plan = createPlanner({ methods: [{ method: 'getblockhash', params: ['{{pinned_height}}'], weight: 1 }] }, 3, 840_000, hex, templates);
    expect(plan(0)).toEqual({ seq: 0, method: 'getblockhash', params: [840_000] });
  });

  it('a workload naming a template needs a pinned block', () => {
    const workload = { methods: [{ method: 'getblockhash', params: ['{{pinned_height}}'], weight: 1 }] };
    expect(usesPinnedBlock(workload)).toBe(false);
    expect(usesPinnedBlock(workload, Object.keys(templates))).toBe(true);
    expect(usesPinnedBlock({ methods: [{ method: 'm', params: ['{{pinned_block}}'], weight: 1 }] }, [])).toBe(true);
  });
});
