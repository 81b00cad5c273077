package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// watch polls the clones' files for the markers of acknowledged writes,
// to time how long each write takes to reach every clone. Polling reads
// files only: the new note's file (until its marker is there), and the
// shared folder's files that changed size or time since the last poll.
type watch struct {
	clones []*clone
	poll   time.Duration

	mu     sync.Mutex
	fresh  []*tracked // acknowledged since the last poll
	all    []*tracked
	active []*tracked  // not yet seen on every clone
	shared []sharedDir // per clone
}

// tracked is an acknowledged write and when its marker was first seen on
// each clone (zero: not yet).
type tracked struct {
	a    ack
	seen []time.Time
	left int
}

// sharedDir is what a clone's shared folder held at the last poll.
type sharedDir struct {
	files map[string]fileState
	text  string // every file's content, joined
}

type fileState struct {
	size int64
	mod  time.Time
	text string
}

func newWatch(clones []*clone, poll time.Duration) *watch {
	w := &watch{clones: clones, poll: poll, shared: make([]sharedDir, len(clones))}
	for i := range w.shared {
		w.shared[i].files = map[string]fileState{}
	}
	return w
}

// add tracks an acknowledged write from now on.
func (w *watch) add(a ack) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fresh = append(w.fresh, &tracked{a: a, seen: make([]time.Time, len(w.clones)), left: len(w.clones)})
}

// start polls until the returned function is called (which returns once
// polling has stopped).
func (w *watch) start() (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(w.poll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				w.pollOnce()
			}
		}
	}()
	return func() { close(done); <-stopped }
}

func (w *watch) pollOnce() {
	w.mu.Lock()
	w.all = append(w.all, w.fresh...)
	w.active = append(w.active, w.fresh...)
	w.fresh = nil
	w.mu.Unlock()
	if len(w.active) == 0 {
		return
	}
	for i, c := range w.clones {
		refreshShared(&w.shared[i], c.dir)
		now := time.Now()
		for _, t := range w.active {
			if t.seen[i].IsZero() && w.holds(i, t.a) {
				t.seen[i] = now
				t.left--
			}
		}
	}
	kept := w.active[:0]
	for _, t := range w.active {
		if t.left > 0 {
			kept = append(kept, t)
		}
	}
	w.active = kept
}

// holds says whether clone i's files hold a's marker, as of the last
// refresh of its shared folder.
func (w *watch) holds(i int, a ack) bool {
	if a.kind == "append" {
		// In the shared note, or in one of its conflict copies beside it.
		return strings.Contains(w.shared[i].text, a.marker)
	}
	b, err := os.ReadFile(filepath.Join(w.clones[i].dir, filepath.FromSlash(a.path)))
	return err == nil && strings.Contains(string(b), a.marker)
}

// refreshShared rereads the files of dir's shared folder that changed.
func refreshShared(s *sharedDir, dir string) {
	folder := filepath.Join(dir, filepath.FromSlash(sharedFolder))
	entries, err := os.ReadDir(folder)
	if err != nil {
		return
	}
	changed := len(entries) != len(s.files)
	present := map[string]bool{}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		present[e.Name()] = true
		old, ok := s.files[e.Name()]
		if ok && old.size == fi.Size() && old.mod.Equal(fi.ModTime()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(folder, e.Name()))
		if err != nil {
			continue
		}
		s.files[e.Name()] = fileState{size: fi.Size(), mod: fi.ModTime(), text: string(b)}
		changed = true
	}
	for name := range s.files {
		if !present[name] {
			delete(s.files, name)
			changed = true
		}
	}
	if changed {
		var b strings.Builder
		for _, f := range s.files {
			b.WriteString(f.text)
			b.WriteByte('\n')
		}
		s.text = b.String()
	}
}

// reach is, for every write seen on every clone, the time from its
// acknowledgement to its marker's arrival on the last clone; and how
// many writes were never seen everywhere while polling.
func (w *watch) reach() (d []time.Duration, unseen int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	unseen = len(w.fresh) // acknowledged after the last poll
	for _, t := range w.all {
		if t.left > 0 {
			unseen++
			continue
		}
		var last time.Time
		for _, s := range t.seen {
			if s.After(last) {
				last = s
			}
		}
		d = append(d, max(0, last.Sub(t.a.at)))
	}
	return d, unseen
}
