package access

import (
	"fmt"
	"maps"
	"slices"
)

// Merge merges two versions of the access file changed from base,
// entry by entry, for a sync: each member's role in each project, each
// bank grant and the owner take the side that changed them. An entry
// changed both ways differently keeps the lesser role (a revocation on one
// side and a grant on the other is a revocation): access fails closed, so
// a revocation is never undone by a merge. Those entries are returned,
// said for people ("sam on acme/platform: write here, read there; read
// kept"). base may be nil (the file was added on both sides).
func Merge(base, ours, theirs []byte) ([]byte, []string, error) {
	b := &Access{}
	if base != nil {
		var err error
		if b, err = Parse(base); err != nil {
			return nil, nil, fmt.Errorf("the common version: %w", err)
		}
	}
	o, err := Parse(ours)
	if err != nil {
		return nil, nil, fmt.Errorf("this side: %w", err)
	}
	t, err := Parse(theirs)
	if err != nil {
		return nil, nil, fmt.Errorf("the other side: %w", err)
	}
	m := &Access{Owner: o.Owner, Members: map[string]map[string]string{}, Banks: map[string][]string{}}
	var said []string
	if owner, clash := threeWay(b.Owner, o.Owner, t.Owner); !clash {
		m.Owner = owner
	} else {
		said = append(said, fmt.Sprintf("owner: %s here, %s there; %s kept (each machine may name its own in %s)", o.Owner, t.Owner, o.Owner, LocalFile))
	}
	for _, who := range unionKeys(b.Members, o.Members, t.Members) {
		for _, project := range unionKeys(b.Members[who], o.Members[who], t.Members[who]) {
			ov, tv := o.Members[who][project], t.Members[who][project]
			v, clash := threeWay(b.Members[who][project], ov, tv)
			if clash {
				v = lesserRole(ov, tv)
				said = append(said, fmt.Sprintf("%s on %s: %s here, %s there; %s kept", who, project, roleWord(ov), roleWord(tv), roleWord(v)))
			}
			if v != "" {
				if m.Members[who] == nil {
					m.Members[who] = map[string]string{}
				}
				m.Members[who][project] = v
			}
		}
	}
	for _, who := range unionKeys(b.Banks, o.Banks, t.Banks) {
		for _, bank := range unionList(b.Banks[who], o.Banks[who], t.Banks[who]) {
			bh, oh, th := slices.Contains(b.Banks[who], bank), slices.Contains(o.Banks[who], bank), slices.Contains(t.Banks[who], bank)
			// A grant changed on one side takes that change (a yes/no
			// cannot change differently on both).
			keep := oh
			if oh == bh {
				keep = th
			}
			if keep {
				m.Banks[who] = append(m.Banks[who], bank)
			}
		}
	}
	if len(m.Members) == 0 {
		m.Members = nil
	}
	if len(m.Banks) == 0 {
		m.Banks = nil
	}
	m.SignIn, said = mergeSignIn(b.SignIn, o.SignIn, t.SignIn, said)
	out, err := m.Marshal()
	return out, said, err
}

// lesserRole is the lesser of two roles as written ("" for none); a role
// that is not one counts as none.
func lesserRole(a, b string) string {
	ra, _ := ParseRole(a)
	rb, _ := ParseRole(b)
	if ra <= rb {
		if ra == RoleNone {
			return ""
		}
		return a
	}
	if rb == RoleNone {
		return ""
	}
	return b
}

func roleWord(r string) string {
	if r == "" {
		return "none"
	}
	return r
}

func unionKeys[V any](ms ...map[string]V) []string {
	set := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			set[k] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func unionList(ls ...[]string) []string {
	var out []string
	for _, l := range ls {
		for _, x := range l {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

// mergeSignIn merges the sign-in maps as the roles are merged: each entry
// takes the side that changed it; one changed both ways differently is
// dropped (nobody signs in as either until a person says which), since
// access fails closed. The claim read is a setting: the side that
// changed it wins, ours when both did.
func mergeSignIn(b, o, t *SignInMap, said []string) (*SignInMap, []string) {
	if b == nil {
		b = &SignInMap{}
	}
	if o == nil {
		o = &SignInMap{}
	}
	if t == nil {
		t = &SignInMap{}
	}
	m := &SignInMap{Claim: o.Claim, Principals: map[string]string{}}
	if o.Claim == b.Claim {
		m.Claim = t.Claim
	}
	for _, who := range unionKeys(b.Principals, o.Principals, t.Principals) {
		ov, tv := o.Principals[who], t.Principals[who]
		v, clash := threeWay(b.Principals[who], ov, tv)
		if clash {
			v = ""
			said = append(said, fmt.Sprintf("signin %s: %s here, %s there; neither kept (map it again in %s)", who, orNone(ov), orNone(tv), File))
		}
		if v != "" {
			m.Principals[who] = v
		}
	}
	if len(m.Principals) == 0 {
		m.Principals = nil
	}
	if m.Claim == "" && m.Principals == nil {
		return nil, said
	}
	return m, said
}

// threeWay is the merge of one value changed from base on either side:
// the side that changed it, or clash when both changed it differently.
func threeWay(base, ours, theirs string) (v string, clash bool) {
	switch {
	case ours == theirs, theirs == base:
		return ours, false
	case ours == base:
		return theirs, false
	}
	return ours, true
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
