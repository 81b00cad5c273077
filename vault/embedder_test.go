package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/search"
)

func writeLocal(t *testing.T, root, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, LocalFile), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func searchConfig(provider, url, keyEnv string) search.EmbedderConfig {
	return search.EmbedderConfig{Provider: provider, URL: url, Model: "m", APIKeyEnv: keyEnv}
}

func TestWhichSharedEmbedderServersAreTaken(t *testing.T) {
	taken := []string{
		"http://127.0.0.1:11434", "http://localhost:8080/v1", "https://LOCALHOST", "http://[::1]:1234/",
		"http://127.0.0.2:9", "http://evil.example@127.0.0.1:80", "",
	}
	for _, u := range taken {
		if why := sharedEmbedderProblems(searchConfig("ollama", u, "")); len(why) != 0 {
			t.Errorf("%q: %v", u, why)
		}
	}
	setAside := []string{
		"http://127.0.0.1.evil.example", "http://localhost.evil.example:11434", "https://evil.example/127.0.0.1",
		"http://127.0.0.1@evil.example", "http://0.0.0.0:11434", "http://10.0.0.5", "http://[::2]:80", "ftp://127.0.0.1",
	}
	for _, u := range setAside {
		if why := sharedEmbedderProblems(searchConfig("openai", u, "")); len(why) != 1 || !strings.Contains(why[0], "not this machine") {
			t.Errorf("%q: %v", u, why)
		}
	}
	if why := sharedEmbedderProblems(searchConfig("ollama", "http://127.0.0.1:11434", "X")); len(why) != 1 || !strings.Contains(why[0], "apiKeyEnv X") {
		t.Errorf("a key variable with a loopback server: %v", why)
	}
	if why := sharedEmbedderProblems(searchConfig("builtin", "https://evil.example", "")); len(why) != 0 {
		t.Errorf("builtin connects nowhere: %v", why)
	}
}

// cairn init --owner on a clone rewrites local.yaml's owner and keeps the
// machine's embedder section.
func TestInitOwnerKeepsTheLocalEmbedder(t *testing.T) {
	_, bob := teamClone(t)
	os.MkdirAll(filepath.Join(bob, CacheDir), 0o755)
	writeLocal(t, bob, "owner: robert\nembedder:\n  provider: ollama\n  url: http://10.1.2.3:11434\n  model: nomic-embed-text\n")
	if _, err := Init(bob, InitOptions{Owner: "bob"}); err != nil {
		t.Fatal(err)
	}
	if o, _ := ReadOwner(bob); o != "bob" {
		t.Fatalf("owner %q", o)
	}
	ch, err := ChooseEmbedder(bob)
	if err != nil || ch.From != LocalFile || ch.Config.URL != "http://10.1.2.3:11434" || ch.Config.Model != "nomic-embed-text" || ch.Refused != "" {
		t.Fatalf("%+v %v\n%s", ch, err, readFile(t, filepath.Join(bob, LocalFile)))
	}
}
