-- complete: KEYS[1] the record, KEYS[2] its shard's expiry index, KEYS[3] its shard's lease index.
-- ARGV[1] token, ARGV[2] status, ARGV[3] headers, ARGV[4] body, ARGV[5] retention ms, ARGV[6] grace ms.
-- 1 if completed; 0 if the record is not in progress with exactly that token (nothing changed).
local rec, idx, leases = KEYS[1], KEYS[2], KEYS[3]
local r = redis.call('HMGET', rec, 's', 't')
if r[1] ~= '0' or r[2] ~= ARGV[1] then
  return 0
end
local now = clock()
local expires = now + tonumber(ARGV[5])
redis.call('HDEL', rec, 'p', 'q')
redis.call('HSET', rec, 's', '1', 'c', ARGV[2], 'h', ARGV[3], 'b', ARGV[4], 'l', int(now), 'e', int(expires))
schedule(rec, idx, expires, tonumber(ARGV[6]))
redis.call('ZREM', leases, rec)
return 1
