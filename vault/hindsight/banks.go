package hindsight

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// ErrBankNotFound is the answer for a bank that does not exist and for one
// the caller may not reach: the two are never told apart.
var ErrBankNotFound = errors.New("memory bank not found")

// BankError names the bank in hindsight's own words.
type BankError struct{ Bank string }

func (e *BankError) Error() string { return fmt.Sprintf("Memory bank '%s' not found", e.Bank) }
func (e *BankError) Unwrap() error { return ErrBankNotFound }

// Banks is the memory banks of one open vault, with the state their
// operations share: one per vault (Of), whoever calls.
type Banks struct {
	v *vault.Vault

	mu   sync.Mutex        // serialises Put (a fact links to the one before it)
	last map[string]string // bank + context → path of the last fact put there
}

// stateKey is the key of a vault's Banks (vault.Attached).
type stateKey struct{}

// Of is the memory banks of v. The Banks are attached to the vault rather
// than made by whoever opens it: a server's MCP sessions, the command line
// and the benchmarks each reach the same one through the vault they share,
// and none of them has to make it or carry it beside the vault.
func Of(v *vault.Vault) *Banks {
	return vault.Attached(v, stateKey{}, func() *Banks { return &Banks{v: v, last: map[string]string{}} })
}

// bankIDPattern: what a bank id may be (a user id, an email, a session id),
// and safe as one folder name.
var bankIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$`)

// ValidBankID says whether id can name a bank. It names a folder, so
// neither a Windows device name nor a trailing dot (vault.SafeNewName).
func ValidBankID(id string) error {
	if !bankIDPattern.MatchString(id) || strings.Contains(id, "..") {
		return fmt.Errorf("%q is not a bank id (letters, digits, . _ @ + -; up to 128; starting with a letter or digit)", id)
	}
	if err := vault.SafeNewName(id); err != nil {
		return fmt.Errorf("%q is not a bank id: %w", id, err)
	}
	return nil
}

// Bank ids compare without case everywhere: the folder, access.yaml's
// grants, a token's --banks. A case-insensitive disk (macOS, Windows)
// cannot hold banks/alice and banks/ALICE apart, so they can only be one
// bank; and an owner who writes to ALICE_BANK must not strand the person
// granted alice_bank. The folder keeps the spelling of the first fact.
func sameBank(a, b string) bool { return strings.EqualFold(a, b) }

// bankFolder is the folder name of bank id: the existing folder that
// matches it without case, or the id itself for a new bank. ok is false
// when two folders match (made by hand on a case-sensitive disk): the id
// is ambiguous and neither is reached.
func (b *Banks) bankFolder(bank string) (folder string, ok bool) {
	f, err := os.Open(filepath.Join(b.v.Root(), vault.BanksDir))
	if err != nil {
		return bank, true
	}
	names, _ := f.Readdirnames(-1) // unsorted, no stat: one bank per user makes a big folder
	f.Close()
	for _, name := range names {
		if sameBank(name, bank) {
			if folder != "" {
				return "", false
			}
			folder = name
		}
	}
	if folder == "" {
		return bank, true
	}
	return folder, true
}

// mayReachBank: the owner reaches every bank; another principal the banks
// access.yaml grants it; a token's bank list narrows either.
func (b *Banks) mayReachBank(c access.Caller, bank string) bool {
	if ValidBankID(bank) != nil {
		return false
	}
	same := func(b string) bool { return sameBank(b, bank) }
	if c.Banks != nil && !slices.ContainsFunc(c.Banks, same) {
		return false
	}
	a, err := b.v.AccessConfig()
	if err != nil {
		return false
	}
	return c.Principal == a.Owner || slices.ContainsFunc(a.Banks[c.Principal], same)
}

func (b *Banks) bankExists(bank string) bool {
	fi, err := os.Lstat(filepath.Join(b.v.Root(), vault.BanksDir, bank)) // a symlink is no bank
	return err == nil && fi.IsDir()
}

// argErr is an error about one argument, as the vault gives them.
func argErr(arg, format string, a ...any) error {
	return &vault.ArgError{Arg: arg, Msg: fmt.Sprintf(format, a...)}
}
