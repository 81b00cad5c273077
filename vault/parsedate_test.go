package vault

import (
	"math/rand"
	"strings"
	"testing"
	"time"
)

// ParseDate's first look (a year of four digits and "-") turns away no
// text one of its layouts reads: it answers as time.Parse over every
// layout does, on corners and on random text made of what dates hold.
func TestParseDateAnswersAsEveryLayoutDoes(t *testing.T) {
	layouts := []string{time.RFC3339Nano, "2006-01-02", "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01"}
	every := func(s string) (time.Time, bool) {
		s = strings.TrimSpace(s) // as ParseDate does first
		for _, l := range layouts {
			if tm, err := time.Parse(l, s); err == nil {
				return tm, true
			}
		}
		return time.Time{}, false
	}
	texts := []string{"2026-11-29", "2026-11", "2026-11-29T14:00:00Z", "2026-11-29 14:00", "2026-11-29T14:00:00.5+02:00",
		"+2026-11-29", "-2026-11-29", "0000-01-01", "99999-01-01", "2026-1-2", "202-11-29", "2O26-11-29", "note",
		"01KB2ZJ5N3V7M1YB4E8W0QXR6T", "", "2026", "2026-", "2026-13-01", "１２３４-01-01"}
	rng := rand.New(rand.NewSource(1))
	const alphabet = "0123456789-:T Z+.x"
	for range 200000 {
		b := make([]byte, rng.Intn(24))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		if rng.Intn(2) == 0 && len(b) >= 5 { // often a year's shape
			copy(b, "2026-")
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		got, ok := ParseDate(s)
		want, wok := every(s)
		if ok != wok || !got.Equal(want) {
			t.Fatalf("ParseDate(%q) = %v, %v; the layouts give %v, %v", s, got, ok, want, wok)
		}
	}
}
