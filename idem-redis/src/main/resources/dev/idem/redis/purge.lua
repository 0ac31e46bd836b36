-- purge: KEYS[1] one shard's expiry index, KEYS[2] its lease index. ARGV[1] limit.
-- Deletes up to limit expired records of the shard and answers how many it deleted.
--
-- The records are read from the index, not passed as KEYS: every record filed in a shard's index
-- has the shard's hash tag in its name, so they are all in the index's hash slot (Redis Cluster).
local idx, leases, limit = KEYS[1], KEYS[2], tonumber(ARGV[1])
local now = clock()
local deleted = 0
while deleted < limit do
  local due = redis.call('ZRANGEBYSCORE', idx, '-inf', int(now), 'LIMIT', 0, limit - deleted)
  if #due == 0 then
    break
  end
  -- Each entry due leaves the range: deleted, dropped, or filed again at a later end. So this ends.
  for _, rec in ipairs(due) do
    local r = redis.call('HMGET', rec, 's', 'l', 'e')
    local state = tonumber(r[1])
    if state == nil then
      -- Redis removed the record itself: only the index entry is left.
      redis.call('ZREM', idx, rec)
      redis.call('ZREM', leases, rec)
    else
      local lease, expires = tonumber(r[2]), tonumber(r[3])
      if live(state, lease, expires, now) then
        redis.call('ZADD', idx, int(record_end(state, lease, expires)), rec)
      else
        redis.call('DEL', rec)
        redis.call('ZREM', idx, rec)
        redis.call('ZREM', leases, rec)
        deleted = deleted + 1
      end
    end
  end
end
return deleted
