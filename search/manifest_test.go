package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The manifest written a document at a time is byte for byte what
// json.Marshal makes of it, so that a manifest reads back as it always
// did: keys sorted, strings escaped the same way, empty and nil maps.
func TestTheManifestIsWrittenAsJSONMarshalWritesIt(t *testing.T) {
	docs := map[string]*docMeta{}
	for i, p := range []string{"b.md", "a.md", "x/<&>.md", "é/\"q\".md", "z\u2028.md", "n\\t.md"} {
		docs[p] = &docMeta{Version: fmt.Sprint("v", i), At: uint64(i), Scope: "shared", Project: "p<&>",
			Tags: []string{"t", "é"}, Date: int64(i) * 1000, Who: []string{"ann"}, Seq: []string{"s"}}
	}
	docs["nil.md"] = nil
	for _, m := range []manifest{
		{Format: manifestFormat, Seq: 7, Docs: docs, Refresh: []string{"a.md", "b<.md"}},
		{Format: manifestFormat, Seq: 1, Docs: docs},
		{Format: manifestFormat, Docs: map[string]*docMeta{}},
		{Format: manifestFormat, Docs: nil, Refresh: []string{"r.md"}},
	} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := m.write(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("written:\n%s\njson.Marshal:\n%s", got.Bytes(), want)
		}
	}
}

// BenchmarkReadManifest reads a manifest of 100,000 notes such as a
// generated vault's (folders of 1,000, a tag, a type, a date, field
// lengths): what a warm start's index open reads first.
//
//	go test ./search -run '^$' -bench ReadManifest -benchtime 5x
func BenchmarkReadManifest(b *testing.B) {
	docs := make(map[string]*docMeta, 100_000)
	for i := range 100_000 {
		docs[fmt.Sprintf("space/f%03d/Note %06d.md", i/1000, i)] = &docMeta{Version: fmt.Sprintf("%d:17965232594425%05d", 1700+i%400, i), At: uint64(1 + i/250),
			Scope: "p:space", Project: "space", Tags: []string{fmt.Sprint("t", i%7)}, Type: "note", Date: 1796523259, Sum: uint64(i) * 0x9E3779B97F4A7C15,
			Lens: fieldLens{2, 2, 0, 0, int32(150 + i%90), int32(280 + i%120), 0, 0, 0, 0, 4, 1, 1}}
	}
	file := filepath.Join(b.TempDir(), "manifest.json")
	m := manifest{Format: manifestFormat, Seq: 400, Docs: docs}
	if err := writeFileWith(file, m.write); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		got, err := readManifest(file)
		if err != nil || len(got.Docs) != len(docs) {
			b.Fatalf("read %d docs: %v", len(got.Docs), err)
		}
	}
	if st, err := os.Stat(file); err == nil {
		b.ReportMetric(float64(st.Size())/1e6, "MB")
	}
}
