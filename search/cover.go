package search

import (
	"context"
	"math"
)

// coverFields are the fields lexCover looks in, the body first.
var coverFields = []string{fBody, fTitle, fAliases, fMeta, fContext}

// lexCover is the share of the query's content words, weighted by their
// inverse document frequency, that the note of hit holds in any of its
// text fields, in either language: how much of what was asked the best
// lexical hit says. Read from the postings (a seek per word), not stored;
// for a note a scan read, from its analysed fields.
func (ix *Index) lexCover(ctx context.Context, text string, hit lexHit) float64 {
	text, _ = splitScaffolding(text)
	analysed := ix.analyse(text)
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return 0
	}
	r, err := adv.Reader()
	if err != nil {
		return 0
	}
	defer r.Close()
	id, err := r.InternalID(hit.Path)
	if hit.scanned == nil && (err != nil || id == nil) {
		return 0
	}
	n, _ := r.DocCount()
	var have, total float64
	seen := map[string]bool{}
	for i, l := range langs {
		for _, t := range analysed[i] {
			if seen[l+":"+t] {
				continue
			}
			seen[l+":"+t] = true
			// The body first: its reader gives the word's document
			// frequency too; the other fields only while not found.
			df := 0
			found := false
			for _, base := range coverFields {
				tfr, err := r.TermFieldReader(ctx, []byte(t), base+"_"+l, false, false, false)
				if err != nil {
					continue
				}
				if base == fBody {
					df = int(tfr.Count())
				}
				if hit.scanned != nil {
					found = hit.scanned.fields[base+"_"+l].count(t) > 0
				} else if d, err := tfr.Advance(id, nil); err == nil && d != nil && d.ID.Equals(id) {
					found = true
				}
				tfr.Close()
				if found {
					break
				}
			}
			w := math.Log(1 + float64(n)/float64(df+1))
			total += w
			if found {
				have += w
			}
		}
	}
	if total == 0 {
		return 0
	}
	return have / total
}
