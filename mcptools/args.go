package mcptools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/vault"
)

// decodeArgs decodes a tool's JSON arguments into dst (a pointer to a
// struct with json tags) strictly: unknown arguments and wrong types are
// errors that name the argument, in words an agent can act on.
func decodeArgs(raw json.RawMessage, dst any) error {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	w := keyWalker{dec: json.NewDecoder(bytes.NewReader(raw))}
	if err := w.value(reflect.TypeOf(dst), "", 0); err != nil && err != errSyntax {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		if _, more := dec.Token(); more != io.EOF {
			return argError("arguments", "must be one JSON object, with nothing after it")
		}
		return nil
	}
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			return argError("arguments", "must be a JSON object")
		}
		return argError(field, "expected %s, got %s", jsonKind(te.Type), te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return argError(name, "unknown argument; this tool takes: %s", strings.Join(fieldNames(dst), ", "))
	}
	return argError("arguments", "not a valid JSON object: %v", err)
}

// maxArgDepth bounds how deep arguments may nest: the deepest tool takes
// four levels (create_notes → notes[i] → links[j] → fields), and walking
// a hostile million-level nesting must not exhaust the stack.
const maxArgDepth = 32

// errSyntax stops the key walk at malformed JSON, which the decoder then
// reports in its own words.
var errSyntax = errors.New("syntax")

// keyWalker reads the arguments' JSON alongside the Go type they decode
// into and refuses what encoding/json lets through silently: a key that
// matches a field only when case is ignored ("Body" for body: the schema
// is case-sensitive, so it is an unknown argument) and a key given twice
// (json keeps the last, while a proxy, a log or a schema check may have
// read the first). Errors name the argument by its path (notes[2].links[0].to).
type keyWalker struct{ dec *json.Decoder }

func (w *keyWalker) value(t reflect.Type, path string, depth int) error {
	if depth > maxArgDepth {
		return argError(orArguments(path), "nests deeper than %d levels", maxArgDepth)
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := w.dec.Token()
	if err != nil {
		return errSyntax
	}
	switch tok {
	case json.Delim('{'):
		return w.object(t, path, depth)
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(elem, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
		if _, err := w.dec.Token(); err != nil {
			return errSyntax
		}
	}
	return nil
}

// object walks an object's members; t is the struct (or map) it decodes
// into, nil when the shape is wrong anyway (the decoder says so).
func (w *keyWalker) object(t reflect.Type, path string, depth int) error {
	var fields map[string]reflect.Type
	var elem reflect.Type
	switch {
	case t != nil && t.Kind() == reflect.Struct:
		fields = structFields(t)
	case t != nil && t.Kind() == reflect.Map:
		elem = t.Elem()
	}
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return errSyntax
		}
		arg := key
		if key == "" {
			arg = `""` // an empty name still reads as one
		}
		if path != "" {
			arg = path + "." + arg
		}
		if seen[key] {
			return argError(arg, "is given twice")
		}
		seen[key] = true
		ft := elem
		if fields != nil {
			if ft, ok = fields[key]; !ok {
				names := sortedKeys(fields)
				if path == "" {
					return argError(arg, "unknown argument; this tool takes: %s", strings.Join(names, ", "))
				}
				return argError(arg, "unknown field; %s takes: %s", path, strings.Join(names, ", "))
			}
		}
		if err := w.value(ft, arg, depth+1); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil {
		return errSyntax
	}
	return nil
}

// structFields maps a struct's JSON names, exactly as spelt, to their types.
func structFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" && f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k, v := range structFields(f.Type) { // promoted, as json does
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func sortedKeys(m map[string]reflect.Type) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func orArguments(path string) string {
	if path == "" {
		return "arguments"
	}
	return path
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.String()
}

func fieldNames(dst any) []string {
	t := reflect.TypeOf(dst)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// checkUTF8 refuses arguments that are not valid UTF-8, raw or through a
// lone surrogate escape (\ud800), naming the argument. Go's JSON decoder
// would otherwise turn both into U+FFFD silently and store damaged text.
func checkUTF8(raw json.RawMessage) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		if !utf8.Valid(raw) {
			return argError("arguments", "not valid UTF-8")
		}
		return nil // decodeArgs reports the shape problem
	}
	names := make([]string, 0, len(top))
	for k := range top {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := top[k]
		if !utf8.Valid(v) || loneSurrogate(v) {
			return argError(k, "is not valid UTF-8")
		}
	}
	if !utf8.Valid(raw) {
		return argError("arguments", "a name is not valid UTF-8")
	}
	return nil
}

// loneSurrogate finds a \uD800-\uDFFF escape that is not a proper pair.
func loneSurrogate(b []byte) bool {
	s := string(b)
	for i := 0; i+6 <= len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		// skip escaped backslashes
		if s[i+1] == '\\' {
			i++
			continue
		}
		if s[i+1] != 'u' {
			continue
		}
		hi, ok := hex4(s[i+2 : i+6])
		if !ok || hi < 0xD800 || hi > 0xDFFF {
			continue
		}
		if hi >= 0xDC00 {
			return true
		}
		if i+12 > len(s) || s[i+6] != '\\' || s[i+7] != 'u' {
			return true
		}
		lo, ok := hex4(s[i+8 : i+12])
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return true
		}
		i += 11
	}
	return false
}

func hex4(s string) (int, bool) {
	n := 0
	for _, c := range s {
		n <<= 4
		switch {
		case c >= '0' && c <= '9':
			n |= int(c - '0')
		case c >= 'a' && c <= 'f':
			n |= int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			n |= int(c-'A') + 10
		default:
			return 0, false
		}
	}
	return n, true
}

func argError(arg, format string, a ...any) error {
	return &vault.ArgError{Arg: arg, Msg: fmt.Sprintf(format, a...)}
}

// optionalCount reads an optional count or budget argument. Left out, it
// is 0, which the vault takes for its default; given, it must lie in
// [lo, hi]: 0 or a negative number is an error naming the argument, never
// a silent fallback to the default (a caller who sends limit: 0 meant
// something, and should learn it was not done).
func optionalCount(name string, v *int, lo, hi int) (int, error) {
	if v == nil {
		return 0, nil
	}
	if *v < lo || *v > hi {
		return 0, argError(name, "must be between %d and %d (leave it out for the default)", lo, hi)
	}
	return *v, nil
}

// required names a missing argument.
func required(name, value string) error {
	if strings.TrimSpace(value) == "" {
		return argError(name, "is required")
	}
	return nil
}
