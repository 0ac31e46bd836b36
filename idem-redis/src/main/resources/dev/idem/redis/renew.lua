-- renew: KEYS[1] the record, KEYS[2] its shard's expiry index, KEYS[3] its shard's lease index. ARGV[1] token, ARGV[2] lease ms (0
-- ends it now), ARGV[3] grace ms.
-- 1 if renewed; 0 if the record is not in progress with exactly that token (nothing changed).
local rec, idx, leases = KEYS[1], KEYS[2], KEYS[3]
local r = redis.call('HMGET', rec, 's', 't', 'e')
if r[1] ~= '0' or r[2] ~= ARGV[1] then
  return 0
end
local now = clock()
local lease_until, expires = now + tonumber(ARGV[2]), tonumber(r[3])
redis.call('HSET', rec, 'l', int(lease_until))
schedule(rec, idx, record_end(0, lease_until, expires), tonumber(ARGV[3]))
redis.call('ZADD', leases, int(lease_until), rec)
return 1
