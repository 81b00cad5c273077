package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var bin string

// TestMain builds the real binary once; every test drives it as a person
// would, through its command line.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cairn-cli-")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "cairn")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs cairn and returns stdout; it fails the test when the exit status
// is not the one wanted.
func run(t *testing.T, wantOK bool, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CAIRN_VAULT=")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if (err == nil) != wantOK {
		t.Fatalf("cairn %s: err=%v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestInitTokenProjectAccessTranscript(t *testing.T) {
	v := filepath.Join(t.TempDir(), "notes")
	out, _ := run(t, true, "init", "--from", "../../sample-vault", "--owner", "me", v)
	if !strings.Contains(out, "Initialised a new vault") || !strings.Contains(out, "62 notes") {
		t.Fatalf("init said: %s", out)
	}
	if git(t, v, "rev-list", "--count", "HEAD") != "1" || git(t, v, "status", "--porcelain") != "" {
		t.Fatal("init must make exactly one commit and leave the tree clean")
	}
	if !strings.Contains(git(t, v, "show", "HEAD:.cairn/access.yaml"), "owner: me") {
		t.Fatal("--owner not recorded")
	}
	if strings.Contains(git(t, v, "ls-files"), ".cairn/secrets") {
		t.Fatal("secrets are tracked")
	}

	tok, errOut := run(t, true, "token", "create", "--vault", v, "--principal", "laptop-agent", "--scope", "write")
	tok = strings.TrimSpace(tok)
	if !strings.HasPrefix(tok, "cairn_pat_") || strings.Contains(tok, "\n") || !strings.Contains(errOut, "not shown again") {
		t.Fatalf("token create printed %q / %q", tok, errOut)
	}
	secrets := filepath.Join(v, ".cairn/secrets/tokens.json")
	fi, err := os.Stat(secrets)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("tokens file mode: %v %v", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(secrets); strings.Contains(string(data), tok) {
		t.Fatal("the token itself is stored")
	}
	list, _ := run(t, true, "token", "list", "--vault", v)
	if !strings.Contains(list, "laptop-agent") || strings.Contains(list, tok) {
		t.Fatalf("token list: %s", list)
	}
	id := strings.Fields(strings.Split(list, "\n")[1])[0]
	run(t, true, "token", "revoke", "--vault", v, id)
	if list, _ := run(t, true, "token", "list", "--vault", v); strings.Contains(list, "laptop-agent") {
		t.Fatal("revoked token still listed")
	}
	run(t, false, "token", "create", "--vault", v, "--principal", "x", "--scope", "admin")
	run(t, false, "token", "list")

	out, _ = run(t, true, "project", "create", "--vault", v, "acme/research", "--name", "Research")
	if !strings.Contains(out, "acme/research") {
		t.Fatalf("project create: %s", out)
	}
	run(t, false, "project", "create", "--vault", v, "acme/research")
	run(t, false, "project", "create", "--vault", v, "Bad Handle")
	if got := git(t, v, "log", "-1", "--format=%(trailers:key=Cairn-Actor,valueonly,separator=)"); got != "human" {
		t.Fatalf("project commit actor: %q", got)
	}
	run(t, true, "access", "grant", "--vault", v, "--principal", "colleague", "--project", "acme/research", "--role", "write")
	if !strings.Contains(git(t, v, "show", "HEAD:.cairn/access.yaml"), "acme/research: write") {
		t.Fatal("grant not committed")
	}
	run(t, false, "access", "grant", "--vault", v, "--principal", "colleague", "--project", "nope", "--role", "write")
	run(t, false, "access", "grant", "--vault", v, "--principal", "colleague", "--project", "acme", "--role", "admin")
	git(t, v, "fsck", "--strict")
	if git(t, v, "status", "--porcelain") != "" {
		t.Fatal("tree not clean")
	}
}

func TestInitAdoptsAnExistingRepositoryWithoutTouchingNotes(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "Note.md"), []byte("# Note\n\nno frontmatter, no id\n"), 0o644)
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "mine")
	before := git(t, dir, "rev-parse", "HEAD:Note.md")
	out, _ := run(t, true, "init", dir)
	if !strings.Contains(out, "Adopted") {
		t.Fatalf("init: %s", out)
	}
	if git(t, dir, "rev-list", "--count", "HEAD") != "2" {
		t.Fatal("adoption must be one commit")
	}
	if git(t, dir, "rev-parse", "HEAD:Note.md") != before {
		t.Fatal("adoption changed a note")
	}
	changed := git(t, dir, "diff", "--name-only", "HEAD~1", "HEAD")
	// The folder had no project: the whole of it becomes one, its marker
	// at the root, so the owner's agents can write at once.
	if changed != ".cairn-project.yaml\n.cairn/access.yaml\n.cairn/config.yaml\n.gitignore" {
		t.Fatalf("adoption touched: %q", changed)
	}
	// Again: it is a vault now, so init only sets this machine up.
	head := git(t, dir, "rev-parse", "HEAD")
	if out, _ := run(t, true, "init", dir); !strings.Contains(out, "Set up this clone of a vault") {
		t.Fatalf("init on a vault: %s", out)
	}
	if git(t, dir, "rev-parse", "HEAD") != head || git(t, dir, "status", "--porcelain") != "" {
		t.Fatal("init on a vault committed or left files")
	}
	run(t, false, "init", "--from", "../../sample-vault", dir)
}

func TestTrashTranscript(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	// Delete through the server (the only agent path), then act as a person.
	srv := startStdio(t, v)
	srv.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_note","arguments":{"ref":"[[Pricing]]"}}}`, `"trashId"`)
	srv.stop()
	list, _ := run(t, true, "trash", "list", "--vault", v)
	if !strings.Contains(list, "acme/launch/Pricing.md") {
		t.Fatalf("trash list: %s", list)
	}
	id := strings.Fields(strings.Split(list, "\n")[1])[0]
	run(t, false, "trash", "restore", "--vault", v, "NOPE")
	out, _ := run(t, true, "trash", "restore", "--vault", v, id)
	if !strings.Contains(out, "restored acme/launch/Pricing.md") {
		t.Fatalf("restore: %s", out)
	}
	if _, err := os.Stat(filepath.Join(v, "acme/launch/Pricing.md")); err != nil {
		t.Fatal(err)
	}
	srv = startStdio(t, v)
	srv.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_note","arguments":{"ref":"[[Pricing]]"}}}`, `"trashId"`)
	srv.stop()
	out, _ = run(t, true, "trash", "empty", "--vault", v)
	if !strings.Contains(out, "emptied 1 notes") {
		t.Fatalf("empty: %s", out)
	}
	if list, _ := run(t, true, "trash", "list", "--vault", v); strings.Count(list, "\n") != 1 {
		t.Fatalf("trash not empty: %s", list)
	}
	if !strings.Contains(git(t, v, "log", "--all", "--format=%s"), "Delete acme/launch/Pricing.md") {
		t.Fatal("history lost the deletion")
	}
	git(t, v, "fsck", "--strict")
}

func TestSecondServeAttachesAndNoAuthStaysOnLoopback(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	srv := startStdio(t, v)
	defer srv.stop()
	// The second server attaches to the first: what one writes, the other
	// reads at once.
	second := startStdio(t, v)
	defer second.stop()
	second.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme/platform","body":"# Attached write\n\nfrom the second server"}}}`, `"versionToken`)
	srv.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_note","arguments":{"ref":"Attached write"}}}`, `from the second server`)
	if out, _ := run(t, true, "doctor", "--vault", v); !strings.Contains(out, fmt.Sprintf("process %d hosts the vault", srv.cmd.Process.Pid)) {
		t.Fatalf("doctor does not name the host:\n%s", out)
	}
	_, errOut := run(t, false, "serve", "--vault", v, "--http", "0.0.0.0:0", "--no-auth")
	if !strings.Contains(errOut, "loopback") {
		t.Fatalf("--no-auth on 0.0.0.0: %s", errOut)
	}
	_, errOut = run(t, false, "serve")
	if !strings.Contains(errOut, "--vault is required") {
		t.Fatalf("no vault: %s", errOut)
	}
}

type stdioServer struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	info string // the reply to initialize
}

func startStdio(t *testing.T, vaultDir string) *stdioServer {
	t.Helper()
	return startStdioCmd(t, exec.Command(bin, "serve", "--vault", vaultDir))
}

// startStdioCmd starts a cairn serve command and initializes a session.
func startStdioCmd(t *testing.T, cmd *exec.Cmd) *stdioServer {
	t.Helper()
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stdioServer{cmd: cmd, in: in, out: bufio.NewReader(outp)}
	s.info = s.call(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"1"}}}`, `"serverInfo"`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *stdioServer) call(t *testing.T, msg, want string) string {
	t.Helper()
	fmt.Fprintln(s.in, msg)
	line, err := s.out.ReadString('\n')
	if err != nil || !strings.Contains(line, want) {
		t.Fatalf("sent %s\ngot %s (%v)", msg, line, err)
	}
	return line
}

func (s *stdioServer) stop() {
	s.in.Close()
	s.cmd.Wait()
}

func TestStdioWithAReadTokenHidesWriteTools(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	tok, _ := run(t, true, "token", "create", "--vault", v, "--principal", "camille", "--scope", "read")
	cmd := exec.Command(bin, "serve", "--vault", v, "--token", strings.TrimSpace(tok))
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stdioServer{cmd: cmd, in: in, out: bufio.NewReader(outp)}
	s.call(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, `"serverInfo"`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	list := s.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `"get_note"`)
	if strings.Contains(list, `"create_note"`) {
		t.Fatal("a read token sees create_note over stdio")
	}
	who := s.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`, `camille`)
	if !strings.Contains(who, `\"ceiling\":\"read\"`) {
		t.Fatalf("whoami: %s", who)
	}
	// Revoked while the session runs: the next call has no tools.
	list2, _ := run(t, true, "token", "list", "--vault", v)
	run(t, true, "token", "revoke", "--vault", v, strings.Fields(strings.Split(list2, "\n")[1])[0])
	after := s.call(t, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, `"tools"`)
	if strings.Contains(after, `"get_note"`) {
		t.Fatalf("a revoked token still lists tools: %s", after)
	}
	s.stop()
	_, errOut := run(t, false, "serve", "--vault", v, "--token", "cairn_pat_bad_bad")
	if !strings.Contains(errOut, "--token") {
		t.Fatalf("bad token: %s", errOut)
	}
}

func TestDoctorTranscript(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	out, _ := run(t, true, "doctor", "--vault", v)
	for _, want := range []string{"ok       projects     3 projects", "ok       notes        62 notes", "2 links resolve to no note yet", "inotify"} {
		if !strings.Contains(out, want) {
			t.Fatalf("doctor said:\n%s\nmissing %q", out, want)
		}
	}
	head := git(t, v, "rev-parse", "HEAD")
	// A copied note and a broken frontmatter are warnings; a duplicate handle is a problem.
	data, _ := os.ReadFile(filepath.Join(v, "acme/launch/Pricing.md"))
	os.WriteFile(filepath.Join(v, "acme/launch/Pricing copy.md"), data, 0o644)
	os.WriteFile(filepath.Join(v, "acme/Broken.md"), []byte("---\nkey: [unclosed\n---\n# Broken\n"), 0o644)
	os.MkdirAll(filepath.Join(v, "acme/dup"), 0o755)
	os.WriteFile(filepath.Join(v, "acme/dup/.cairn-project.yaml"), []byte("handle: acme/launch\n"), 0o644)
	out, errOut := run(t, false, "doctor", "--vault", v)
	for _, want := range []string{"warning  ids", "Pricing copy.md", "warning  frontmatter  acme/Broken.md", "problem  projects", "claim handle acme/launch"} {
		if !strings.Contains(out, want) {
			t.Fatalf("doctor said:\n%s\nmissing %q", out, want)
		}
	}
	if !strings.Contains(errOut, "1 problem") {
		t.Fatalf("stderr: %s", errOut)
	}
	if git(t, v, "rev-parse", "HEAD") != head {
		t.Fatal("doctor changed the vault")
	}
}

func TestSearchAndReindexTranscript(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	out, _ := run(t, true, "search", "--vault", v, "which", "CDN", "provider")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(lines[0], "Decision CDN provider") || !strings.Contains(out, "**CDN**") || !strings.HasSuffix(lines[len(lines)-1], "results, hybrid") {
		t.Fatalf("search output:\n%s", out)
	}
	out, _ = run(t, true, "search", "--vault", v, "--json", "--mode", "lexical", "--project", "acme", "--limit", "3", "ecole")
	if !strings.Contains(out, `"mode": "lexical"`) || !strings.Contains(out, `"results": [`) {
		t.Fatalf("--json:\n%s", out)
	}
	_, errOut := run(t, false, "search", "--vault", v, "--mode", "fuzzy", "x")
	if !strings.Contains(errOut, "mode") {
		t.Fatalf("bad mode: %s", errOut)
	}
	for _, n := range []string{"0", "-3"} { // not silently the default
		if _, errOut := run(t, false, "search", "--vault", v, "--limit", n, "x"); !strings.Contains(errOut, "--limit") {
			t.Fatalf("--limit %s: %s", n, errOut)
		}
	}
	out, errOut = run(t, true, "reindex", "--vault", v)
	if !strings.Contains(out, "reindexed 62 notes") || !strings.Contains(errOut, "indexed: 62/62") {
		t.Fatalf("reindex:\nstdout %s\nstderr %s", out, errOut)
	}
	// While a server hosts the vault, both run in it: a note the server
	// writes is found at once, and stays found through a rebuild.
	srv := startStdio(t, v)
	defer srv.stop()
	srv.call(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_note","arguments":{"project":"acme/platform","body":"# Quokka census\n\nwritten through the server"}}}`, `"versionToken`)
	out, errOut = run(t, true, "search", "--vault", v, "quokka")
	if !strings.Contains(out, "Quokka census") {
		t.Fatalf("search under a server:\nstdout %s\nstderr %s", out, errOut)
	}
	out, errOut = run(t, true, "reindex", "--vault", v)
	if !strings.Contains(out, "reindexed 63 notes") || !strings.Contains(errOut, "rebuilding in the server") {
		t.Fatalf("reindex under a server:\nstdout %s\nstderr %s", out, errOut)
	}
	srv.call(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"quokka"}}}`, `Quokka census`)
}

func TestBankGrantTranscript(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	out, _ := run(t, true, "access", "grant-bank", "--vault", v, "--principal", "sam", "--bank", "user_12345")
	if strings.TrimSpace(out) != "sam reaches bank user_12345" {
		t.Fatalf("grant-bank: %q", out)
	}
	if !strings.Contains(readFileT(t, filepath.Join(v, ".cairn", "access.yaml")), "user_12345") {
		t.Fatal("access.yaml has no bank grant")
	}
	_, errOut := run(t, false, "access", "grant-bank", "--vault", v, "--principal", "sam", "--bank", "../x")
	if !strings.Contains(errOut, "bank") {
		t.Fatalf("bad bank: %s", errOut)
	}
	out, _ = run(t, true, "access", "revoke-bank", "--vault", v, "--principal", "sam", "--bank", "user_12345")
	if !strings.Contains(out, "no longer reaches") || strings.Contains(readFileT(t, filepath.Join(v, ".cairn", "access.yaml")), "user_12345") {
		t.Fatalf("revoke-bank: %q", out)
	}
}

func readFileT(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// What a crashed writer leaves (an intent in the write lock, cairn's marked
// git lock, its temporary files), a lock of git's, and a note edited while
// nothing ran: doctor reports each without touching them, doctor --fix
// repairs what is safe and leaves a fresh git lock alone.
func TestDoctorFixTranscript(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", "--from", "../../sample-vault", v)
	head := git(t, v, "rev-parse", "HEAD")
	const nonce = "0123456789ab"
	old := time.Now().Add(-2 * time.Hour)
	write := func(rel, content string, mtime time.Time) {
		p := filepath.Join(v, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, mtime, mtime)
	}
	write(".cairn/cache/write.lock", "cairn-commit "+nonce+" 999999\n", old)
	write(".git/index.lock", "cairn "+nonce+"\n", old)
	write("acme/launch/.Pricing.md.cairn-tmp-"+nonce+"-42", "half", old)
	write(".git/objects/ab/tmp_obj_cairn-"+nonce+"-7", "x", old)
	write(".git/objects/cd/tmp_obj_123456", "an old git temp object", old)
	write(".git/refs/heads/stale.lock", "0000000000000000000000000000000000000000\n", old)
	write(".git/refs/heads/fresh.lock", "0000000000000000000000000000000000000000\n", time.Now())
	write("acme/launch/Written while stopped.md", "# Written while stopped\n", old)

	out, _ := run(t, false, "doctor", "--vault", v)
	for _, want := range []string{
		"problem  crash        process 999999 died mid-commit",
		"problem  git lock     .git/index.lock (doctor --fix removes it): cairn's own; no cairn commit is under way",
		"problem  git lock     .git/refs/heads/stale.lock (doctor --fix removes it): no process has it open",
		"problem  git lock     .git/refs/heads/fresh.lock (left alone): younger than 1m0s",
		"warning  temp file    acme/launch/.Pricing.md.cairn-tmp-" + nonce + "-42",
		"warning  temp file    .git/objects/ab/tmp_obj_cairn-" + nonce + "-7",
		"warning  temp file    .git/objects/cd/tmp_obj_123456",
		"warning  uncommitted  1 note(s) changed on disk and not committed: acme/launch/Written while stopped.md",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("doctor said:\n%s\nmissing %q", out, want)
		}
	}
	if git(t, v, "rev-parse", "HEAD") != head {
		t.Fatal("doctor without --fix changed the vault")
	}
	if _, err := os.Stat(filepath.Join(v, ".git/index.lock")); err != nil {
		t.Fatal("doctor without --fix removed a lock")
	}

	out, _ = run(t, false, "doctor", "--vault", v, "--fix")
	for _, want := range []string{
		"fixed    doctor       recovered: a commit interrupted when process 999999 died was dropped; removed its locks .git/index.lock; removed 2 temporary file(s)",
		"fixed    doctor       removed git lock .git/refs/heads/stale.lock",
		"fixed    doctor       removed temporary file .git/objects/cd/tmp_obj_123456",
		"fixed    doctor       committed 1 note(s) changed on disk, as the person's: acme/launch/Written while stopped.md",
		"problem  git lock     .git/refs/heads/fresh.lock (left alone): younger than 1m0s",
		"ok       uncommitted  every note is committed",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("doctor --fix said:\n%s\nmissing %q", out, want)
		}
	}
	if strings.Contains(out, "warning  temp file") || strings.Contains(out, "problem  crash") {
		t.Fatalf("doctor --fix left leftovers:\n%s", out)
	}
	if who := git(t, v, "log", "-1", "--format=%(trailers:key=Cairn-Actor,valueonly)"); who != "human" {
		t.Fatalf("the note was committed as %q", who)
	}
	os.Remove(filepath.Join(v, ".git/refs/heads/fresh.lock"))
	run(t, true, "doctor", "--vault", v)
	if st := git(t, v, "status", "--porcelain"); st != "" {
		t.Fatalf("status after --fix:\n%s", st)
	}
	git(t, v, "fsck", "--strict", "--no-dangling")
}

func TestServeRefusesAQuietPeriodTooShortToTellASaveInProgress(t *testing.T) {
	v := filepath.Join(t.TempDir(), "v")
	run(t, true, "init", v)
	for _, bad := range []string{"10ms", "-1s"} {
		_, errOut := run(t, false, "serve", "--vault", v, "--commit-after", bad)
		if !strings.Contains(errOut, "--commit-after: "+bad) || !strings.Contains(errOut, "under 100ms") {
			t.Fatalf("--commit-after %s: %s", bad, errOut)
		}
	}
}
