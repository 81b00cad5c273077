package search

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// The manifest (manifest.json) records what the Bleve index holds, by
// document; it and the vector file are saved as a whole, atomically.

type manifest struct {
	Format int                 `json:"format"`
	Seq    uint64              `json:"seq"`
	Docs   map[string]*docMeta `json:"docs"`
	// Refresh are the documents whose context waits to be indexed again
	// (markNeighbours).
	Refresh []string `json:"refresh,omitempty"`
}

// write writes the manifest as json.Marshal would, a document at a time:
// marshalled whole, it was 16 MiB at 100,000 notes, held at every save
// during a build on top of the build's peak (issue 16).
func (m *manifest) write(w io.Writer) error {
	b := fmt.Appendf(nil, `{"format":%d,"seq":%d,"docs":`, m.Format, m.Seq)
	if m.Docs == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		for i, p := range slices.Sorted(maps.Keys(m.Docs)) {
			key, err := json.Marshal(p)
			if err != nil {
				return err
			}
			doc, err := json.Marshal(m.Docs[p])
			if err != nil {
				return err
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(append(b, key...), ':'), doc...)
			if len(b) >= 64<<10 {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
		b = append(b, '}')
	}
	if len(m.Refresh) > 0 {
		refresh, err := json.Marshal(m.Refresh)
		if err != nil {
			return err
		}
		b = append(append(b, `,"refresh":`...), refresh...)
	}
	_, err := w.Write(append(b, '}'))
	return err
}

func readManifest(file string) (*manifest, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("no manifest")
		}
		return nil, fmt.Errorf("manifest: %w", err)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest is damaged: %w", err)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("manifest format %d, want %d", m.Format, manifestFormat)
	}
	if m.Docs == nil {
		m.Docs = map[string]*docMeta{}
	}
	for _, dm := range m.Docs {
		if dm != nil {
			dm.share()
		}
	}
	return &m, nil
}

func writeFileAtomic(file string, data []byte) error {
	return writeFileWith(file, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileWith is writeFileAtomic for content that write streams (through
// a buffer of 256 KiB) rather than holds whole.
func writeFileWith(file string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	bw := bufio.NewWriterSize(f, 256<<10)
	if err = write(bw); err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, file)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
