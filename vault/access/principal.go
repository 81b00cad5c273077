package access

import (
	"fmt"
	"regexp"
	"strings"
)

// deviceName matches the names Windows reserves for a device in every
// folder (CON, PRN, AUX, NUL, COM0-9, LPT0-9, also with an extension), as
// a principal spells them: in lower case.
var deviceName = regexp.MustCompile(`^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$`)

// ValidPrincipal checks a principal id: a lower-case word usable in paths
// on every system, since it names the folder people/<p>/.
func ValidPrincipal(p string) error {
	if p == "" || len(p) > 64 || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "" || strings.HasPrefix(p, ".") || strings.HasPrefix(p, "-") {
		return fmt.Errorf("%q is not a valid principal (lower-case letters, digits, '-', '_', '.'; at most 64)", p)
	}
	switch {
	case deviceName.MatchString(p):
		return fmt.Errorf("%q is not a valid principal: %q is a name Windows reserves for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9, also with an extension)", p, p)
	case strings.HasSuffix(p, "."):
		return fmt.Errorf("%q is not a valid principal: %q ends with a dot or a space, which Windows drops", p, p)
	}
	return nil
}
