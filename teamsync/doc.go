// Package teamsync syncs a vault with a git remote (issue "teams"): fetch,
// integrate, push, never leaving a conflict marker in a note and never
// losing either side of a conflict. It sits on top of vault's exported API
// and gitstore.
//
// Sync runs once, in the process holding the vault (cairn sync, through
// the host when one runs; the host's background sync, host/bgsync.go): the git command line
// fetches and pushes (so SSH keys, agents and credential helpers work as
// they do for git) and merges (git merge-tree, git merge-file: go-git has
// no three-way merge); gitstore.Advance moves the vault to the result.
// remote.go sets git up for every transport (paths, file://, ssh, https
// with CAIRN_GIT_TOKEN or git's credential helpers, git://) so that it
// never prompts, and turns its failures into RemoteErrors that say which
// remote failed, why, and that nothing changed here.
package teamsync
