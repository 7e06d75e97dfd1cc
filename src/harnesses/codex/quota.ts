import type { QuotaSource } from "../../core/quota/types.js";

/** Quota sources of this harness, most trusted first (filled in by the quota work in progress). */
export const quotaSources: readonly QuotaSource[] = [];
