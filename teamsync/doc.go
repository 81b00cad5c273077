// Package teamsync syncs a vault with a git remote (issue "teams"): fetch,
// integrate, push, never leaving a conflict marker in a note and never
// losing either side of a conflict. It sits on top of vault's exported API
// and gitstore.
//
// So far it holds the merge of one note changed on both sides (MergeNote);
// fetching, integrating a whole history and pushing come next.
package teamsync
