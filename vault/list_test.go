package vault

import (
	"encoding/base64"
	"testing"
)

// A cursor is only ever one list_notes gave for that folder and tag: a
// forged or foreign one is an error naming cursor, never an empty page.
func TestListCursorsAreCheckedNotTrusted(t *testing.T) {
	v, _ := sampleVault(t)
	first, err := v.ListNotes(owner, ListArgs{Path: "acme/launch", Limit: 2})
	if err != nil || first.NextCursor == "" {
		t.Fatalf("first page: %+v %v", first, err)
	}
	second, err := v.ListNotes(owner, ListArgs{Path: "acme/launch", Limit: 2, Cursor: first.NextCursor})
	if err != nil || len(second.Entries) != 2 || second.Entries[0].Path == first.Entries[0].Path {
		t.Fatalf("second page: %+v %v", second, err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	for name, cur := range map[string]string{
		"raw JSON":              `{"offset":-10}`,
		"base64 JSON":           enc([]byte(`{"offset":-10}`)),
		"a bare sort key":       enc([]byte("1Pricing.md")),
		"past every entry":      enc([]byte("zzz")),
		"not base64":            "!!!",
		"another folder's page": mustNext(t, v, ListArgs{Path: "acme/launch/meetings", Limit: 2}),
	} {
		_, err := v.ListNotes(owner, ListArgs{Path: "acme/launch", Limit: 2, Cursor: cur})
		wantArgErr(t, name, err, "cursor", "list_notes")
	}
	tagged := mustNext(t, v, ListArgs{Path: "acme/launch/meetings", Limit: 1, Tag: "launch"})
	_, err = v.ListNotes(owner, ListArgs{Path: "acme/launch/meetings", Limit: 1, Cursor: tagged})
	wantArgErr(t, "another tag's page", err, "cursor", "list_notes")
	// The same folder reached through its project gives the same cursor.
	if _, err := v.ListNotes(owner, ListArgs{Project: "acme/launch", Limit: 2, Cursor: first.NextCursor}); err != nil {
		t.Fatalf("the folder through its project: %v", err)
	}
}

func mustNext(t *testing.T, v *Vault, a ListArgs) string {
	t.Helper()
	l, err := v.ListNotes(owner, a)
	if err != nil || l.NextCursor == "" {
		t.Fatalf("list %+v: %+v %v", a, l, err)
	}
	return l.NextCursor
}
