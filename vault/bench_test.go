package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Benchmarks of the vault's own cost (no MCP transport). The figures the
// issue asks for come from bench/vaultbench, on a 10,000-note vault.

func BenchmarkCreateNote(b *testing.B) {
	v, _ := sampleVault(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Path: "bench", Body: fmt.Sprintf("# Bench %d\n\nbody text", i)}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEditNote(b *testing.B) {
	v, _ := sampleVault(b)
	n, _ := v.GetNote(owner, "[[Pricing]]", false, "")
	tok := n.VersionToken
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := v.EditNote(owner, EditArgs{Ref: n.ID, VersionToken: tok, Operation: OpAppend, Content: str(fmt.Sprintf("line %d", i))})
		if err != nil {
			b.Fatal(err)
		}
		tok = w.VersionToken
	}
}

func BenchmarkGetNote(b *testing.B) {
	v, _ := sampleVault(b)
	n, _ := v.GetNote(owner, "[[Pricing]]", false, "")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := v.GetNote(owner, n.ID, false, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// The cost a new name's case check adds to a create: reading the folder
// and comparing each name without case (most of it is the read).
func BenchmarkCaseTwin(b *testing.B) {
	for _, entries := range []int{100, 10000} {
		b.Run(fmt.Sprint(entries), func(b *testing.B) {
			dir := b.TempDir()
			for i := 0; i < entries; i++ {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("Note number %d.md", i)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			v := &Vault{root: dir}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if twin := v.caseTwin("", "note NUMBER 99999.md", ""); twin != "" {
					b.Fatal(twin)
				}
			}
		})
	}
}
