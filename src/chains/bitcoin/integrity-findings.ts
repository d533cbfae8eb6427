/*
 * How the Bitcoin verifier's steps stop: a step that finds an answer proven wrong, or that cannot go
 * on proving it, throws one of these; the verifier turns them into its finding (and any other
 * error into `not_provable`), so no answer can make `verify` throw.
 */

/** The answer is proven wrong at `path` (JSON path into the answer, `$` its root). */
export class ProvenWrong extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'ProvenWrong';
  }
}

/** The answer cannot be proven (no commitment, a proof the endpoint would not give, too far from the anchor …). */
export class NotProvable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'NotProvable';
  }
}
