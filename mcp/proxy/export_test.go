package proxy

import (
	"time"

	"github.com/selfheal/selfheal/mcp/internal/repair"
)

// SetRepairClock gives p's tracker of outcomes the clock now, and the
// bound within, so that a test reaches the bound without waiting for it.
func SetRepairClock(p *Proxy, now func() time.Time, within time.Duration) {
	p.repairs = repair.New(p.settled, repair.Limits{Within: within}, now)
}
