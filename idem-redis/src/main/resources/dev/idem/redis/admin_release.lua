-- admin_release: KEYS[1] the record, KEYS[2] its shard's expiry index, KEYS[3] its lease index.
-- ARGV[1] token, ARGV[2] '1' to release a lease that still runs, ARGV[3] grace ms.
-- Answers 0 released, 1 lease still running (not forced), 2 another token, 3 not in progress.
-- Released leaves a tombstone under the next token, so the holder's writes (which need state 0 and
-- its token) change nothing, and the next acquisition's token grows from it.
local rec, idx, leases = KEYS[1], KEYS[2], KEYS[3]
local r = redis.call('HMGET', rec, 's', 't', 'l', 'e')
local state, lease, expires = tonumber(r[1]), tonumber(r[3]), tonumber(r[4])
local now = clock()
if state ~= 0 or not live(state, lease, expires, now) then
  return 3
end
if r[2] ~= ARGV[1] then
  return 2
end
if ARGV[2] ~= '1' and lease > now then
  return 1
end
redis.call('DEL', rec)
redis.call('HSET', rec, 's', '2', 't', int(tonumber(r[2]) + 1), 'e', r[4])
schedule(rec, idx, expires, tonumber(ARGV[3]))
redis.call('ZREM', leases, rec)
return 0
