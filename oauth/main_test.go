package oauth

import (
	"os"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// The tests sign in dozens of times; under the race detector a bcrypt
// check at the real cost takes seconds. The cost is the only change: the
// hashing, the file and the checks are the real ones.
func TestMain(m *testing.M) {
	passwordCost = bcrypt.MinCost
	os.Exit(m.Run())
}
