// Package treaisure is the treaisure memory family: the user's own words,
// captured verbatim into their personal domain, one note per thought,
// under one of two spaces (personal, professional) that are never
// searched together; served by the treaisure_capture_thought and
// treaisure_search_memory tools (TreAIsure's own, so that its clients
// work unchanged). A thought lives at
// people/<principal>/thoughts/<space>/, where only its principal reaches
// it; a capture writes nothing until the user has confirmed the proposal,
// and the same words are never saved twice in one space.
//
// A search answers with a dossier of evidence: direct items (the user's
// own words match the question), related ones (reached from a direct
// item through a link, a shared entity or a shared topic) and semantic
// ones (only similar in meaning), so that an agent never presents context
// as something the user said.
//
// The package is built on package vault's exported API and the few hooks
// of vault/hooks_families.go (a commit, a search on one principal's
// scope, the catalog's ids, the links around a note, a read that follows
// no link). Its state (the lock that makes a duplicate check and its
// commit one step) is one per open vault, attached to it
// (vault.Attached): Of gives it, to every MCP session of a server alike.
//
// What is where:
//   - capture.go: treaisure_capture_thought (Thoughts.Capture), the
//     per-vault state (Thoughts, Of).
//   - search.go: treaisure_search_memory (Thoughts.Search): the dossier
//     and its levels.
//   - topics.go: a thought's topics and entities, by a light deterministic
//     extraction.
//
// docs/families.md describes the family as its clients see it.
package treaisure
