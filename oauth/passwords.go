package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"golang.org/x/crypto/bcrypt"
)

// PasswordsFile holds each principal's sign-in password as a bcrypt hash
// (cost passwordCost), mode 0600, never committed. Set by `cairn password
// set`; read again when it changes, so a new password works at once.
const PasswordsFile = ".cairn/secrets/passwords.json"

// passwordCost makes one check take about a quarter of a second on a
// small server: slow for a guesser with the file, quick for a person. A
// variable only so that this package's tests (run with the race
// detector, where one check takes seconds) can use bcrypt's least.
var passwordCost = 12

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 12

type passwords struct {
	file  string
	mu    sync.Mutex
	stamp string
	byWho map[string]string
}

func openPasswords(root string) *passwords {
	return &passwords{file: filepath.Join(root, PasswordsFile)}
}

func (p *passwords) loadLocked() (map[string]string, error) {
	fi, err := os.Stat(p.file)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	stamp := fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())
	if stamp == p.stamp {
		return p.byWho, nil
	}
	data, err := os.ReadFile(p.file)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", p.file, err)
	}
	p.stamp, p.byWho = stamp, m
	return m, nil
}

// check says whether password is principal's. An unknown principal costs
// the same time as a known one, so timing does not tell them apart.
func (p *passwords) check(principal, password string) bool {
	p.mu.Lock()
	m, err := p.loadLocked()
	p.mu.Unlock()
	hash, ok := m[principal]
	if err != nil || !ok {
		bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// dummyHash is compared with when a principal has no password, made at
// the first such check, at the cost in force then.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("not a password of anyone's"), passwordCost)
	return h
})

// SetPassword sets principal's sign-in password in the vault at root.
func SetPassword(root, principal, password string) error {
	if err := access.ValidPrincipal(principal); err != nil {
		return fmt.Errorf("principal: %w", err)
	}
	if len([]rune(password)) < MinPasswordLength {
		return fmt.Errorf("password: at least %d characters", MinPasswordLength)
	}
	if len(password) > 72 {
		return errors.New("password: at most 72 bytes (bcrypt reads no more)")
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), passwordCost)
	if err != nil {
		return fmt.Errorf("password: %w", err)
	}
	return updatePasswords(root, func(m map[string]string) { m[principal] = string(hash) })
}

// RemovePassword removes principal's password: they can no longer sign in
// (their grants stay until revoked).
func RemovePassword(root, principal string) error {
	found := false
	err := updatePasswords(root, func(m map[string]string) { _, found = m[principal]; delete(m, principal) })
	if err == nil && !found {
		return fmt.Errorf("principal %q has no password", principal)
	}
	return err
}

func updatePasswords(root string, f func(map[string]string)) error {
	p := openPasswords(root)
	m, err := p.loadLocked()
	if err != nil {
		return err
	}
	f(m)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p.file), 0o700); err != nil {
		return err
	}
	return gitstore.WriteFileAtomic(p.file, data, 0o600)
}
