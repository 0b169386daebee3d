package redisguard

import "github.com/redis/go-redis/v9"

// The scripts keep every decision inside Redis, atomic and on Redis's own
// clock (TIME), so that replicas whose clocks disagree still share one
// limit. Times are microseconds since the epoch: about 1.8e15 today, whole
// microseconds exact in a Lua number (a double) until the year 2255, and a
// fraction of one to a quarter microsecond, so a TAT drifts by at most
// 1/8 µs a call, under 0.2% at the highest Rate the Limiter enforces
// (1e6 calls a second is no limit, see New). Numbers written back to
// Redis are formatted explicitly ('%.17g'), because the default conversion
// of a Lua number to a string rounds to 14 digits in older Redis versions.
//
// redis.replicate_commands() lets a script that read TIME write afterwards
// on Redis 3.2 to 4.x; from Redis 5 on it is the default and the call is a
// no-op.

// acquireScript admits one call, both limits in one round trip. The slot is
// checked first and the token taken only if the call will run, so a call
// shed for concurrency takes no token (as the in-process guard); a call
// refused for the rate takes no slot.
//
//	KEYS[1]  rate key: the GCRA's theoretical arrival time (TAT), µs
//	KEYS[2]  active key: a sorted set of holders, scored by expiry, µs
//	ARGV[1]  emission interval, µs per call (0: no rate limit)
//	ARGV[2]  tolerance, µs: interval × burst
//	ARGV[3]  MaxActive (0: no concurrency limit)
//	ARGV[4]  slot TTL, µs
//	ARGV[5]  holder id
//	ARGV[6]  deadline, µs on Redis's clock: past it, the caller has stopped
//	         waiting (0: none)
//
// Reply: {0, 0, now} admitted, {1, 0, now} busy, {2, µs until a call is
// admitted, now}, {3, 0, now} too late: nothing taken. now is Redis's
// clock, from which the Limiter learns how far its own is from it.
//
// The deadline matters when Redis stalls: a script sent on an open
// connection waits in Redis's buffer and runs when Redis wakes up, long
// after its caller was told Redis is unavailable; had it taken a slot,
// nobody would release it, and a stall of seconds would refuse every call
// of the key for the slots' TTL.
//
// GCRA: a call at time now is admitted when max(TAT, now) + interval −
// tolerance ≤ now, and then moves TAT to max(TAT, now) + interval. The key
// expires when TAT passes, that is when the bucket is full again and the
// key holds nothing a later call needs.
var acquireScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local deadline = tonumber(ARGV[6])
if deadline > 0 and now > deadline then
  return {3, 0, now}
end
local maxActive = tonumber(ARGV[3])
if maxActive > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('%.17g', now))
  if redis.call('ZCARD', KEYS[2]) >= maxActive then
    return {1, 0, now}
  end
end
local interval = tonumber(ARGV[1])
if interval > 0 then
  local tat = tonumber(redis.call('GET', KEYS[1])) or now
  if tat < now then tat = now end
  local wait = tat + interval - tonumber(ARGV[2]) - now
  if wait > 0 then
    return {2, math.ceil(wait), now}
  end
  tat = tat + interval
  local px = math.max(math.min(math.ceil((tat - now) / 1000), 1e12), 1)
  redis.call('SET', KEYS[1], string.format('%.17g', tat), 'PX', string.format('%d', px))
end
if maxActive > 0 then
  local ttl = tonumber(ARGV[4])
  redis.call('ZADD', KEYS[2], string.format('%.17g', now + ttl), ARGV[5])
  local ms = math.ceil(ttl / 1000)
  if redis.call('PTTL', KEYS[2]) < ms then
    redis.call('PEXPIRE', KEYS[2], string.format('%d', ms))
  end
end
return {0, 0, now}
`)

// refreshScript pushes back the expiry of a held slot, so that a long call
// keeps it while a crashed replica's slots come back after the TTL. A slot
// that is gone (it expired and another call took its place) is not brought
// back: that would exceed MaxActive.
//
//	KEYS[1]  active key
//	ARGV[1]  slot TTL, µs
//	ARGV[2]  holder id
//
// Reply: 1 still held, 0 gone.
var refreshScript = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  return 0
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ttl = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], 'XX', string.format('%.17g', now + ttl), ARGV[2])
local ms = math.ceil(ttl / 1000)
if redis.call('PTTL', KEYS[1]) < ms then
  redis.call('PEXPIRE', KEYS[1], string.format('%d', ms))
end
return 1
`)
