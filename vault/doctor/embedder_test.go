package doctor

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/vault"
)

const testKeyEnv, testKey = "CAIRN_TEST_EMBED_KEY", "sekrit-42"

// keyServer is an OpenAI-compatible embedding server on 127.0.0.1 that
// records the Authorization header of every request it receives.
type keyServer struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
}

func newKeyServer(t *testing.T) *keyServer {
	t.Helper()
	ks := &keyServer{}
	ks.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ks.mu.Lock()
		ks.auth = append(ks.auth, r.Header.Get("Authorization"))
		ks.mu.Unlock()
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, s := range req.Input {
			v := make([]float32, 8)
			for j := range v {
				v[j] = float32((len(s)+j)%5) + 1
			}
			out.Data = append(out.Data, item{i, v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(ks.Close)
	return ks
}

// requests returns the Authorization headers received so far.
func (ks *keyServer) requests() []string {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return append([]string(nil), ks.auth...)
}

func embedderFindingOf(t *testing.T, v *vault.Vault) Finding {
	t.Helper()
	for _, f := range Check(v) {
		if f.Check == "embedder" {
			return f
		}
	}
	t.Fatalf("doctor has no embedder finding: %+v", Check(v))
	return Finding{}
}

// The shared config.yaml names this machine's server and a key variable:
// the key is never read nor sent (the server, on loopback, receives no
// request at all), search uses the builtin vectors, and doctor names the
// problem and the fix.
func TestASharedEmbedderSectionNeverSendsAKey(t *testing.T) {
	t.Setenv(testKeyEnv, testKey)
	ks := newKeyServer(t)
	v, dir := sampleVault(t)
	writeConfig(t, dir, "format: 1\nembedder:\n  provider: openai\n  url: "+ks.URL+"\n  model: m\n  apiKeyEnv: "+testKeyEnv+"\n")

	r := searchT(t, v, owner, vault.SearchArgs{Query: "rollback"})
	if r.Mode != "hybrid" || len(r.Results) == 0 {
		t.Fatalf("search must go on with the builtin vectors: mode %s notice %q, %d results", r.Mode, r.Notice, len(r.Results))
	}
	if !v.SemanticSearch() {
		t.Error("whoami would say vector: false, but the builtin vectors are in use")
	}
	f := embedderFindingOf(t, v)
	for _, want := range []string{vault.ConfigFile, "apiKeyEnv " + testKeyEnv, "builtin vectors", "move", vault.LocalFile} {
		if f.Level != "problem" || !strings.Contains(f.Message, want) {
			t.Fatalf("doctor's embedder finding %+v does not say %q", f, want)
		}
	}
	if got := ks.requests(); len(got) != 0 {
		t.Fatalf("the server named by the shared file received %d requests (Authorization %q)", len(got), got)
	}
	if strings.Contains(f.Message, testKey) {
		t.Fatal("doctor printed the key")
	}
}

// A url elsewhere in the shared file, with or without a key variable, or
// an openai provider without a url (api.openai.com): set aside for the
// builtin vectors, which need no network (the sandbox has none, so a
// search would fall back to lexical if the server were tried).
func TestASharedEmbedderElsewhereIsSetAside(t *testing.T) {
	t.Setenv(testKeyEnv, testKey)
	v, dir := sampleVault(t)
	cases := []struct{ section, says string }{
		{"{provider: openai, url: 'https://evil.example/', model: m}", "url https://evil.example/ is not this machine"},
		{"{provider: ollama, url: 'https://u:pw@evil.example/', model: m, apiKeyEnv: " + testKeyEnv + "}", "u:xxxxx@evil.example"},
		{"{provider: openai, model: m}", "without a url sends to https://api.openai.com"},
	}
	for i, c := range cases {
		writeConfig(t, dir, "format: 1\nembedder: "+c.section+"\n")
		ch, err := vault.ChooseEmbedder(dir)
		if err != nil || ch.Config.Provider != "builtin" || !strings.Contains(ch.Refused, c.says) {
			t.Fatalf("%s: %+v %v", c.section, ch, err)
		}
		if f := embedderFindingOf(t, v); f.Level != "problem" || !strings.Contains(f.Message, c.says) || strings.Contains(f.Message, "pw") {
			t.Fatalf("%s: doctor %+v", c.section, f)
		}
		if i == 0 {
			if r := searchT(t, v, owner, vault.SearchArgs{Query: "rollback"}); r.Mode != "hybrid" || len(r.Results) == 0 {
				t.Fatalf("mode %s notice %q", r.Mode, r.Notice)
			}
		}
	}
}

// The same settings in this machine's .cairn/local.yaml are used, key
// and all, and win whole over the shared file's section.
func TestALocalEmbedderSectionIsUsedWithItsKey(t *testing.T) {
	t.Setenv(testKeyEnv, testKey)
	ks := newKeyServer(t)
	v, dir := sampleVault(t)
	writeConfig(t, dir, "format: 1\nembedder: {provider: openai, url: 'https://evil.example/', model: other, apiKeyEnv: HOME}\n")
	writeLocal(t, dir, "owner: owner\nembedder:\n  provider: openai\n  url: "+ks.URL+"\n  model: m\n  apiKeyEnv: "+testKeyEnv+"\n")

	r := searchT(t, v, owner, vault.SearchArgs{Query: "rollback"})
	if r.Mode != "hybrid" || len(r.Results) == 0 {
		t.Fatalf("mode %s notice %q, %d results", r.Mode, r.Notice, len(r.Results))
	}
	got := ks.requests()
	if len(got) == 0 {
		t.Fatal("this machine's server received nothing")
	}
	for _, a := range got {
		if a != "Bearer "+testKey {
			t.Fatalf("a request carried Authorization %q", a)
		}
	}
	f := embedderFindingOf(t, v)
	if f.Level != "ok" || !strings.Contains(f.Message, "openai at "+ks.URL) || !strings.Contains(f.Message, vault.LocalFile) {
		t.Fatalf("doctor: %+v", f)
	}
}

// A loopback server in the shared file, without a key variable, is used
// (a team that all run Ollama locally): requests arrive, with no key.
func TestALoopbackEmbedderInTheSharedFileIsUsed(t *testing.T) {
	t.Setenv(testKeyEnv, testKey)
	ks := newKeyServer(t)
	v, dir := sampleVault(t)
	writeConfig(t, dir, "format: 1\nembedder: {provider: openai, url: '"+ks.URL+"', model: m, dimensions: 8}\n")
	if r := searchT(t, v, owner, vault.SearchArgs{Query: "rollback"}); r.Mode != "hybrid" {
		t.Fatalf("mode %s notice %q", r.Mode, r.Notice)
	}
	got := ks.requests()
	if len(got) == 0 {
		t.Fatal("the loopback server received nothing")
	}
	for _, a := range got {
		if a != "" {
			t.Fatalf("a request carried Authorization %q", a)
		}
	}
	if f := embedderFindingOf(t, v); f.Level != "ok" || !strings.Contains(f.Message, vault.ConfigFile) {
		t.Fatalf("doctor: %+v", f)
	}
}

// A bad embedder section in local.yaml: an error naming the file and the
// key, in doctor and in every search; the vault still opens and nothing
// is written. A key cairn does not know at the top stops the vault from
// opening, as before, naming the file.
func TestABadLocalEmbedderSectionNamesFileAndKey(t *testing.T) {
	v, dir := sampleVault(t)
	head := gitOut(t, dir, "rev-parse", "HEAD")
	cases := []struct{ section, key string }{
		{"{provider: openai, url: 'http://127.0.0.1:9', model: m, apikeyenv: X}", "apikeyenv"},
		{"{provider: magic}", "embedder.provider"},
		{"{provider: ollama, model: m, dimensions: -3}", "embedder.dimensions"},
		{"{provider: openai, url: 'ftp://127.0.0.1', model: m}", "embedder.url"},
		{"{provider: openai, url: 'http://127.0.0.1:9'}", "embedder.model"},
		{"{provider: ollama, model: m, dimensions: lots}", "embedder.dimensions"},
		{"{provider: ollama, model: a, model: b}", "embedder.model: line 2: given twice"},
		{"[a, b]", "embedder: line 2: a section of settings"},
	}
	for _, c := range cases {
		content := "owner: owner\nembedder: " + c.section + "\n"
		writeLocal(t, dir, content)
		f := embedderFindingOf(t, v)
		if f.Level != "problem" || !strings.Contains(f.Message, vault.LocalFile) || !strings.Contains(f.Message, c.key) {
			t.Errorf("%s: doctor %+v", c.section, f)
		}
		if v.SemanticSearch() {
			t.Errorf("%s: whoami would claim vector search", c.section)
		}
		if readFile(t, filepath.Join(dir, vault.LocalFile)) != content {
			t.Fatalf("%s: the file was changed", c.section)
		}
	}
	if r := searchT(t, v, owner, vault.SearchArgs{Query: "rollback"}); r.Mode != "lexical" || !strings.Contains(r.Notice, vault.LocalFile) || !strings.Contains(r.Notice, "embedder") {
		t.Fatalf("mode %s notice %q", r.Mode, r.Notice)
	}
	if gitOut(t, dir, "rev-parse", "HEAD") != head || gitOut(t, dir, "status", "--porcelain") != "" {
		t.Fatal("a bad local file changed the vault")
	}
	v.Close()
	writeLocal(t, dir, "owner: owner\nembeder: {provider: builtin}\n")
	if _, err := vault.Open(dir, vault.Options{Quiet: testQuiet}); err == nil || !strings.Contains(err.Error(), vault.LocalFile) || !strings.Contains(err.Error(), "embeder") {
		t.Fatalf("a misspelt section: %v", err)
	}
}
