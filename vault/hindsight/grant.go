package hindsight

import (
	"fmt"
	"slices"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// Grant gives (or with grant false takes back) a principal's access to a
// memory bank, in .cairn/access.yaml, in one commit. The owner reaches
// every bank without a grant.
func (b *Banks) Grant(c access.Caller, principal, bank string, grant bool) error {
	if err := access.ValidPrincipal(principal); err != nil {
		return &vault.ArgError{Arg: "principal", Msg: err.Error()}
	}
	if err := ValidBankID(bank); err != nil {
		return argErr("bank", "%v", err)
	}
	if b.v.Owner() != c.Principal {
		return fmt.Errorf("%w: only the vault owner grants access", vault.ErrForbidden)
	}
	verb := "Grant"
	if !grant {
		verb = "Revoke"
	}
	return b.v.EditAccess(c, fmt.Sprintf("%s %s bank %s", verb, principal, bank), func(a *access.Access) error {
		if principal == a.Owner {
			return argErr("principal", "%s owns the vault and reaches every bank", principal)
		}
		if a.Banks == nil {
			a.Banks = map[string][]string{}
		}
		banks := slices.DeleteFunc(slices.Clone(a.Banks[principal]), func(b string) bool { return sameBank(b, bank) })
		if grant {
			banks = append(banks, bank)
			slices.Sort(banks)
		}
		if len(banks) == 0 {
			delete(a.Banks, principal)
		} else {
			a.Banks[principal] = banks
		}
		return nil
	})
}
