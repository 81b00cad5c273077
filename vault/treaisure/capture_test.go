package treaisure

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/vaulttest"
)

func TestConcurrentCapturesMakeOneThought(t *testing.T) {
	v, dir := vaulttest.Sample(t)
	statuses := make(chan string, 8)
	for i := 0; i < 8; i++ {
		go func() {
			c, err := Of(v).Capture(vaulttest.Owner, CaptureArgs{Text: "The same words at once", Space: "personal", Confirmed: true})
			if err != nil {
				statuses <- err.Error()
				return
			}
			statuses <- c.Status
		}()
	}
	count := map[string]int{}
	for i := 0; i < 8; i++ {
		count[<-statuses]++
	}
	if count[CaptureCreated] != 1 || count[CaptureExists] != 7 {
		t.Fatalf("statuses: %v", count)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "people", "owner", "thoughts", "personal", "*.md"))
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	today := time.Now().Format("2006-01-02")
	if c, _ := Of(v).Capture(vaulttest.Owner, CaptureArgs{Text: "Dated today", Space: "personal", OccurredAt: today, Confirmed: true}); c.Status != CaptureCreated {
		t.Errorf("today is not the future: %+v", c)
	}
}
