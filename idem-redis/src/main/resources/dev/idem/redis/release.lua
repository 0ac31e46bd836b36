-- release: KEYS[1] the record, KEYS[2] its shard's expiry index, KEYS[3] its shard's lease index. ARGV[1] token, ARGV[2] grace ms.
-- 1 if released; 0 if the record is not in progress with exactly that token (nothing changed).
-- What stays is a tombstone with the token alone, until the record's retention ends, so the next
-- acquisition's token grows from this one's.
local rec, idx, leases = KEYS[1], KEYS[2], KEYS[3]
local r = redis.call('HMGET', rec, 's', 't', 'e')
if r[1] ~= '0' or r[2] ~= ARGV[1] then
  return 0
end
local expires = tonumber(r[3])
redis.call('DEL', rec)
redis.call('HSET', rec, 's', '2', 't', r[2], 'e', r[3])
schedule(rec, idx, expires, tonumber(ARGV[2]))
redis.call('ZREM', leases, rec)
return 1
