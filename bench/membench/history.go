package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/corpus"
)

// oneCommitPerNote rewrites the history of a vault corpus.Generate made
// (all its files in one commit) as one commit per file, in the notes'
// order, with git fast-import: the same files at HEAD, the history of a
// vault written note by note. The files are read from the work tree.
func oneCommitPerNote(dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	// "Note 000042.md": the base name orders the notes as they were made;
	// the project marker sorts first.
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet", "--force")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	fmt.Fprintf(w, "reset refs/heads/main\n")
	for i, f := range files {
		body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			in.Close()
			cmd.Wait()
			return err
		}
		msg := "add " + f
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter bench <bench@cairn.local> %d +0000\ndata %d\n%s\n", i+1, when+int64(i)*60, len(msg), msg)
		if i > 0 {
			fmt.Fprintf(w, "from :%d\n", i)
		}
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", quote(f), len(body), body)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	// The index already holds these blobs; only HEAD's commit changed.
	return corpus.Git(dir, "reset", "-q", "main")
}

// quote is a path as fast-import reads it: C-style quotes (the notes'
// names hold spaces).
func quote(p string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(p) + `"`
}
