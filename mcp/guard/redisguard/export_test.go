package redisguard

// WithSlotTTL lets the tests shorten the slots' TTL (see withSlotTTL).
var WithSlotTTL = withSlotTTL
