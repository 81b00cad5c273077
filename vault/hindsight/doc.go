// Package hindsight is the hindsight memory family: memory banks, served
// by the hindsight_put and hindsight_search tools (Hindsight's own API, so
// that a client written for it works unchanged). A bank is a folder,
// banks/<bank_id>/, and each fact one note in it: the content verbatim as
// the body; its context (category), type, event date and the caller's
// explanation in the frontmatter; facts put one after another in one
// context linked as a sequence. A person reads, edits and `git log`s them
// like any note; the vault's other tools never show them.
//
// Who reaches a bank: the vault's owner reaches every one; another
// principal those the access file grants it (Banks.Grant, `cairn access
// grant-bank`); a token's bank list narrows either. A bank one may not
// reach and one that does not exist answer the same (ErrBankNotFound).
//
// The package is built on package vault's exported API and the few hooks
// of vault/hooks_families.go (a commit, a search on a bank's scope, the
// catalog's ids, a read that follows no link). Its state (a lock, and the
// last fact of each context) is one per open vault, attached to it
// (vault.Attached): Of gives it, to every MCP session of a server alike.
//
// What is where:
//   - banks.go: bank ids and folders, who reaches a bank, the per-vault
//     state (Banks, Of).
//   - put.go: hindsight_put (Banks.Put): a fact's file, its type, its
//     event date, its link to the fact before it.
//   - search.go: hindsight_search (Banks.Search): a bank's facts, packed
//     into a token budget.
//   - grant.go: a principal's access to a bank, in the access file.
//
// docs/families.md describes the family as its clients see it.
package hindsight
