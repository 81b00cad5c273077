package oauth

import (
	"sync"
	"time"
)

// limiter allows each key n attempts per window: a sliding count of the
// attempts made within the last window. Keys are forgotten once their
// window has passed; at most maxKeys are kept (beyond, the oldest go), so
// a flood of distinct keys costs bounded memory.
type limiter struct {
	n      int
	window time.Duration
	mu     sync.Mutex
	seen   map[string][]time.Time
}

const maxKeys = 10000

func newLimiter(n int, window time.Duration) *limiter {
	return &limiter{n: n, window: window, seen: map[string][]time.Time{}}
}

// allow records an attempt for key and says whether it is within the
// limit; when not, it says when the next attempt will be.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cut := now.Add(-l.window)
	ts := l.seen[key]
	i := 0
	for i < len(ts) && !ts[i].After(cut) {
		i++
	}
	ts = ts[i:]
	if len(ts) >= l.n {
		l.seen[key] = ts
		return false, ts[0].Add(l.window).Sub(now)
	}
	if len(l.seen) >= maxKeys {
		l.forget(cut)
	}
	l.seen[key] = append(ts, now)
	return true, 0
}

// forget drops keys with no attempt in the window, and if none can go,
// any one key. The caller holds l.mu.
func (l *limiter) forget(cut time.Time) {
	for k, ts := range l.seen {
		if len(ts) == 0 || !ts[len(ts)-1].After(cut) {
			delete(l.seen, k)
		}
	}
	for k := range l.seen {
		if len(l.seen) < maxKeys {
			break
		}
		delete(l.seen, k)
	}
}
