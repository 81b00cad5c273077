package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/go-jose/go-jose/v4"
)

// KeysFile holds the authorization server's secrets: the key that signs
// ID tokens (which the library always issues beside an access token) and
// the key that encrypts access tokens (the library's opaque bearer
// tokens). Made on first use, mode 0600, never committed: a restart keeps
// every grant valid; deleting the file ends them all.
const KeysFile = ".cairn/secrets/oauth-keys.json"

type keyFile struct {
	SigningKeyID string `json:"signingKeyId"`
	SigningKey   []byte `json:"signingKey"` // PKCS#8 DER, ECDSA P-256
	CryptoKey    []byte `json:"cryptoKey"`  // 32 bytes, AES-256-GCM
}

// keys are the loaded secrets.
type keys struct {
	id     string
	signer *ecdsa.PrivateKey
	crypto [32]byte
}

// loadKeys reads the vault's key file, making it when there is none.
func loadKeys(root string) (*keys, error) {
	file := filepath.Join(root, KeysFile)
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return makeKeys(file)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth keys: %w", err)
	}
	var kf keyFile
	if err := json.Unmarshal(data, &kf); err != nil {
		return nil, fmt.Errorf("oauth keys: %s: %w", file, err)
	}
	k, err := x509.ParsePKCS8PrivateKey(kf.SigningKey)
	if err != nil {
		return nil, fmt.Errorf("oauth keys: %s: signing key: %w", file, err)
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok || len(kf.CryptoKey) != 32 || kf.SigningKeyID == "" {
		return nil, fmt.Errorf("oauth keys: %s: not a key file cairn wrote (delete it to make new keys, which ends every grant)", file)
	}
	out := &keys{id: kf.SigningKeyID, signer: ec}
	copy(out.crypto[:], kf.CryptoKey)
	return out, nil
}

func makeKeys(file string) (*keys, error) {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("oauth keys: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(ec)
	if err != nil {
		return nil, fmt.Errorf("oauth keys: %w", err)
	}
	kf := keyFile{SigningKeyID: randomID(8), SigningKey: der, CryptoKey: make([]byte, 32)}
	rand.Read(kf.CryptoKey)
	data, err := json.MarshalIndent(kf, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, fmt.Errorf("oauth keys: %w", err)
	}
	if err := gitstore.WriteFileAtomic(file, data, 0o600); err != nil {
		return nil, fmt.Errorf("oauth keys: %w", err)
	}
	out := &keys{id: kf.SigningKeyID, signer: ec}
	copy(out.crypto[:], kf.CryptoKey)
	return out, nil
}

// signingKey is op.SigningKey.
type signingKey struct{ k *keys }

func (s signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.ES256 }
func (s signingKey) Key() any                                    { return s.k.signer }
func (s signingKey) ID() string                                  { return s.k.id }

// publicKey is op.Key.
type publicKey struct{ k *keys }

func (p publicKey) ID() string                         { return p.k.id }
func (p publicKey) Algorithm() jose.SignatureAlgorithm { return jose.ES256 }
func (p publicKey) Use() string                        { return "sig" }
func (p publicKey) Key() any                           { return &p.k.signer.PublicKey }
