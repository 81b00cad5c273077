package mcptools

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault"
)

// argShapes are the argument structs of tools with every kind of field:
// strings, an optional integer, a boolean, arrays of strings, nested
// objects and arrays of objects.
func argShapes() []any {
	return []any{
		&noArgs{},
		&noteArgs{},
		&struct {
			Project string     `json:"project"`
			Notes   []noteArgs `json:"notes"`
		}{},
		&struct {
			Links []vault.LinkArgs `json:"links"`
		}{},
		&struct {
			Project string `json:"project"`
			Cursor  string `json:"cursor"`
			Limit   *int   `json:"limit"`
		}{},
		&struct {
			Ref       string `json:"ref"`
			KeepAlias bool   `json:"keepAlias"`
		}{},
	}
}

var argSeeds = []string{
	``, `null`, `{}`, `[]`, `"text"`, `5`, `{"project":"acme","body":"# T","tags":["a","b"],"links":[{"type":"x","to":"[[y]]"}]}`,
	`{"notes":[{"body":"# A"},{"body":"# B","links":[{"type":"x","toTitle":"y"}]}]}`,
	`{"links":[{"from":"a","to":"b","type":"relates_to"}]}`, `{"Body":"x"}`, `{"body":"a","body":"b"}`,
	`{"body":5}`, `{"limit":1.5}`, `{"limit":-0}`, `{"limit":1e400}`, `{"limit":null}`, `{"keepAlias":"true"}`,
	`{"notes":[{"body":"# A","BODY":"# B"}]}`, `{"x":{"y":[1,2,{"z":3}]}}`, `{"body":"\ud800"}`, "{\"body\":\"\xff\"}",
	`{"notes":` + strings.Repeat("[", 50) + strings.Repeat("]", 50) + `}`, `{"body":"# T"} trailing`, `{"a":1,}`, `{`,
}

// Strict decoding never panics; what it accepts has only known argument
// names, exactly as spelt and once each, at every level; what it refuses
// is an error naming an argument.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range argSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		_ = checkUTF8(raw)
		for _, dst := range argShapes() {
			err := decodeArgs(raw, dst)
			if err != nil {
				var ae *vault.ArgError
				if !errors.As(err, &ae) || ae.Arg == "" {
					t.Fatalf("%T: %q: an error naming no argument: %v", dst, raw, err)
				}
				continue
			}
			var v any
			if len(bytes.TrimSpace(raw)) == 0 {
				continue
			}
			if json.Unmarshal(raw, &v) != nil {
				t.Fatalf("%T: accepted %q, which is not one JSON value", dst, raw)
			}
			if v == nil {
				continue // null: no arguments
			}
			if bad := unknownKey(v, reflect.TypeOf(dst)); bad != "" {
				t.Fatalf("%T: accepted %q with the unknown key %q", dst, raw, bad)
			}
			if dup := duplicateKey(raw); dup != "" {
				t.Fatalf("%T: accepted %q with %q given twice", dst, raw, dup)
			}
		}
	})
}

// unknownKey finds an object key, at any level, that is not exactly the
// JSON name of a field of the struct it decodes into.
func unknownKey(v any, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch x := v.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return ""
		}
		for k, val := range x {
			f, ok := fieldByJSONName(t, k)
			if !ok {
				return k
			}
			if bad := unknownKey(val, f.Type); bad != "" {
				return k + "." + bad
			}
		}
	case []any:
		if t.Kind() != reflect.Slice {
			return ""
		}
		for _, e := range x {
			if bad := unknownKey(e, t.Elem()); bad != "" {
				return bad
			}
		}
	}
	return ""
}

func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// duplicateKey finds a key given twice in one object, reading tokens.
func duplicateKey(raw []byte) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	var stack []map[string]bool
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1] != nil }
	afterKey := false
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, map[string]bool{})
			afterKey = false
			continue
		case json.Delim('['):
			stack = append(stack, nil)
			afterKey = false
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			afterKey = false
			continue
		}
		if s, ok := tok.(string); ok && expectKey() && !afterKey {
			if stack[len(stack)-1][s] {
				return s
			}
			stack[len(stack)-1][s] = true
			afterKey = true
			continue
		}
		afterKey = false
	}
}
