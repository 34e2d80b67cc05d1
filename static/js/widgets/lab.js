// Section 14, the lab (first cut: server-rendered only).
export function mount() {}
