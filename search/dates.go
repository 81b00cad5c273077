package search

import (
	"strconv"
	"strings"
	"time"
)

// dateHint is a month and/or a year a query names ("in June", "May 2023",
// "en mars", "2022"): notes dated then are preferred (dateBoost), since a
// memory is often recalled by when it happened. 0 means any.
type dateHint struct {
	month time.Month
	year  int
}

var monthNames = map[string]time.Month{}

func init() {
	en := []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
	fr := []string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"}
	for i := range en {
		monthNames[en[i]] = time.Month(i + 1)
		monthNames[fr[i]] = time.Month(i + 1)
	}
	monthNames["fevrier"] = time.February
	monthNames["aout"] = time.August
	monthNames["decembre"] = time.December
	// "may" and "mars" are also common words: they count only beside a
	// year or after a preposition (see dateHints).
}

// ambiguousMonths are month names that are also ordinary words.
var ambiguousMonths = map[string]bool{"may": true, "mars": true, "march": true}

// dateHints reads the months and years a query names.
func dateHints(q string) []dateHint {
	words := strings.Fields(strings.ToLower(q))
	for i, w := range words {
		words[i] = strings.Trim(w, ".,;:!?\"'()[]")
	}
	year := func(i int) int {
		if i < 0 || i >= len(words) {
			return 0
		}
		if y, err := strconv.Atoi(words[i]); err == nil && y >= 1900 && y <= 2200 && len(words[i]) == 4 {
			return y
		}
		return 0
	}
	var out []dateHint
	used := map[int]bool{}
	for i, w := range words {
		m, ok := monthNames[w]
		if !ok {
			continue
		}
		y := year(i + 1)
		if ambiguousMonths[w] && y == 0 {
			prev := ""
			if i > 0 {
				prev = words[i-1]
			}
			if prev != "in" && prev != "en" && prev != "of" && prev != "since" && prev != "during" && prev != "early" && prev != "late" && prev != "mid" {
				continue
			}
		}
		if y != 0 {
			used[i+1] = true
		}
		out = append(out, dateHint{month: m, year: y})
	}
	for i := range words {
		if y := year(i); y != 0 && !used[i] {
			out = append(out, dateHint{year: y})
		}
	}
	return out
}

func (h dateHint) matches(unix int64) bool {
	if unix == 0 {
		return false
	}
	t := time.Unix(unix, 0).UTC()
	return (h.month == 0 || t.Month() == h.month) && (h.year == 0 || t.Year() == h.year)
}
