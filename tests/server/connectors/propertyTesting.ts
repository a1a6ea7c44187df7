/**
 * fast-check with a fixed seed, so the suite is deterministic; FC_SEED=<n> explores other
 * inputs (a failure prints its seed and path to replay).
 */
import fc from "fast-check";

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_240_110) });

export default fc;
