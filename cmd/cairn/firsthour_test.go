package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runIn runs cairn in dir with CAIRN_VAULT unset, as a person in a shell.
func runIn(t *testing.T, dir string, wantOK bool, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CAIRN_VAULT=")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); (err == nil) != wantOK {
		t.Fatalf("cairn %s in %s: err=%v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), dir, err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// The README's first five minutes on one's own vault: adopt an Obsidian
// vault, and an agent of the owner writes a note in it at once; every
// command finds the vault from inside it.
func TestFirstHourOwnObsidianVaultAndAnAgentWrites(t *testing.T) {
	v := filepath.Join(t.TempDir(), "My Vault")
	if out, err := exec.Command("cp", "-R", "../../vault/testdata/obsidian-vault", v).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, out)
	}
	out, _ := run(t, true, "init", v)
	if !strings.Contains(out, "The whole vault is project my-vault") {
		t.Fatalf("init: %s", out)
	}
	// From a folder inside the vault, with no --vault and no CAIRN_VAULT.
	list, _ := runIn(t, filepath.Join(v, "Notes"), true, "project", "list")
	if !strings.Contains(list, "my-vault") || !strings.Contains(list, "./") {
		t.Fatalf("project list from inside: %s", list)
	}
	_, errOut := runIn(t, t.TempDir(), false, "project", "list")
	if !strings.Contains(errOut, "--vault is required here") {
		t.Fatalf("outside every vault: %s", errOut)
	}

	s := startStdio(t, v)
	defer s.stop()
	who := s.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, `my-vault`)
	if strings.Contains(who, `notice`) {
		t.Fatalf("the owner of a vault with a project is told it sees nothing: %s", who)
	}
	created := s.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_note","arguments":{"body":"# Agent notes\n\nWritten by an agent, first thing."}}}`, `"result"`)
	if strings.Contains(created, `"isError":true`) || !strings.Contains(created, `Agent notes.md`) {
		t.Fatalf("create_note with no project: %s", created)
	}
	if data, err := os.ReadFile(filepath.Join(v, "Agent notes.md")); err != nil || !strings.Contains(string(data), "first thing") {
		t.Fatalf("the note on disk: %v %q", err, data)
	}
	if log := git(t, v, "log", "-1", "--format=%s"); !strings.Contains(log, "Agent notes") {
		t.Fatalf("the commit: %s", log)
	}
}

// A token for a principal nobody granted anything is warned about when it
// is made, and its agent is told why it sees nothing and what to run.
func TestFirstHourATokenThatSeesNothingSaysWhy(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	tok, errOut := run(t, true, "token", "create", "--vault", v, "--principal", "laptop-agent", "--scope", "write")
	if !strings.Contains(errOut, "warning: its agent will see nothing") || !strings.Contains(errOut, "cairn access grant --principal laptop-agent") {
		t.Fatalf("token create: %s", errOut)
	}
	_, errOut = run(t, true, "token", "create", "--vault", v, "--principal", "owner", "--toolsets", "treaisure")
	if strings.Contains(errOut, "see nothing") || !strings.Contains(errOut, "a read token") {
		t.Fatalf("a read token for the owner: %s", errOut)
	}
	cmd := exec.Command(bin, "serve", "--vault", v, "--token", strings.TrimSpace(tok))
	s := startStdioCmd(t, cmd)
	defer s.stop()
	who := s.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, `laptop-agent`)
	if !strings.Contains(who, `no project is granted to laptop-agent`) {
		t.Fatalf("whoami: %s", who)
	}
	ss := s.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"start_session","arguments":{}}}`, `"result"`)
	if !strings.Contains(ss, `cairn access grant --principal laptop-agent`) {
		t.Fatalf("start_session: %s", ss)
	}
	// Granted, the same token sees the project at once.
	run(t, true, "access", "grant", "--vault", v, "--principal", "laptop-agent", "--project", "acme/launch", "--role", "write")
	who = s.call(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, `acme/launch`)
	if strings.Contains(who, `no project is granted`) {
		t.Fatalf("whoami after the grant: %s", who)
	}
}

// Joining a team whose remote was made with plain git init --bare (HEAD at
// master) after the first member pushed main.
func TestFirstHourCloneOfAPlainBareRemote(t *testing.T) {
	root := t.TempDir()
	remote := filepath.Join(root, "team.git")
	if out, err := exec.Command("git", "-c", "init.defaultBranch=master", "init", "-q", "--bare", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v %s", err, out)
	}
	first := filepath.Join(root, "first")
	run(t, true, "init", "--from", "../../sample-vault", first)
	git(t, first, "remote", "add", "origin", remote)
	run(t, true, "sync", "--vault", first)
	if head := git(t, remote, "symbolic-ref", "HEAD"); head != "refs/heads/master" {
		t.Fatalf("the remote's HEAD: %s", head)
	}
	second := filepath.Join(root, "second")
	out, _ := run(t, true, "clone", "--owner", "sam", remote, second)
	if !strings.Contains(out, "a vault of") {
		t.Fatalf("clone: %s", out)
	}
	if b := git(t, second, "branch", "--show-current"); b != "main" {
		t.Fatalf("the clone is on %q", b)
	}
	run(t, true, "sync", "--vault", second)
}

// Argument errors show the usage; a busy port says so in words; the
// version is the same everywhere.
func TestFirstHourPolish(t *testing.T) {
	_, errOut := run(t, false, "init")
	if !strings.Contains(errOut, "usage: cairn init") {
		t.Fatalf("init with no DIR: %s", errOut)
	}
	_, errOut = run(t, false, "token", "create", "--bogus")
	if !strings.Contains(errOut, "unknown flag: --bogus") || !strings.Contains(errOut, "usage: cairn token create") {
		t.Fatalf("unknown flag: %s", errOut)
	}
	ver, _ := run(t, true, "version")
	flag, _ := run(t, true, "--version")
	fields := strings.Fields(ver)
	if len(fields) < 2 || !strings.Contains(flag, fields[1]) {
		t.Fatalf("version %q and --version %q differ", ver, flag)
	}
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	s := startStdio(t, v)
	s.stop()
	if !strings.Contains(s.info, `"version":"`+fields[1]+`"`) {
		t.Fatalf("serverInfo %s, cairn version %s", s.info, ver)
	}
	// With CAIRN_VAULT set, --vault's help names one default, not two.
	cmd := exec.Command(bin, "search", "--help")
	cmd.Env = append(os.Environ(), "CAIRN_VAULT="+v)
	help, err := cmd.Output()
	if err != nil || strings.Contains(string(help), `(default "`) {
		t.Fatalf("search --help: %v\n%s", err, help)
	}
	// A busy port is said in words.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, errOut = run(t, false, "serve", "--vault", v, "--http", ln.Addr().String())
	if !strings.Contains(errOut, "the address is in use") || strings.Contains(errOut, "bind:") {
		t.Fatalf("a busy port: %s", errOut)
	}
}

// A TreAIsure client: the README's token (write, the treaisure toolset)
// captures the seed's own example and finds it by the seed's question.
func TestFirstHourATreAIsureClientCapturesAndFinds(t *testing.T) {
	v := filepath.Join(t.TempDir(), "notes")
	run(t, true, "init", v)
	tok, _ := run(t, true, "token", "create", "--vault", v, "--principal", "owner", "--scope", "write", "--toolsets", "treaisure")
	s := startStdioCmd(t, exec.Command(bin, "serve", "--vault", v, "--token", strings.TrimSpace(tok)))
	defer s.stop()
	list := s.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `"tools"`)
	if !strings.Contains(list, `"treaisure_capture_thought"`) || !strings.Contains(list, `"treaisure_search_memory"`) || strings.Contains(list, `"create_note"`) {
		t.Fatalf("tools/list: %s", list)
	}
	s.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"treaisure_capture_thought","arguments":{"text":"Nous lançons d'abord auprès de vingt clients pilotes.","space":"professional","confirmed":true}}}`, `created`)
	found := s.call(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"treaisure_search_memory","arguments":{"question":"Qu'avais-je décidé pour le lancement ?","space":"professional"}}}`, `"result"`)
	if !strings.Contains(found, `vingt clients pilotes`) {
		t.Fatalf("the seed's question: %s", found)
	}
}
