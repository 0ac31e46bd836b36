-- admin_in_progress: KEYS[1] one shard's lease index. ARGV[1] 'expired' (records whose lease is over,
-- by lease end) or 'oldest' (the record in progress created first, lease running or not), ARGV[2] limit.
-- Answers {now, then per record: scope, key, token, attempt, lease end, retention end, created,
-- phase, recovery state}. Entries whose record is no longer in progress (Redis removed it, or an
-- older build wrote it) leave the index here.
local leases, mode, limit = KEYS[1], ARGV[1], tonumber(ARGV[2])
local now = clock()
local out = {int(now)}
local found = 0
local oldest, oldest_created = nil, nil
local upto = mode == 'expired' and int(now) or '+inf'
local from = 0
while mode ~= 'expired' or found < limit do
  local batch = redis.call('ZRANGEBYSCORE', leases, '-inf', upto, 'LIMIT', from, 100)
  if #batch == 0 then
    break
  end
  local kept = 0
  for _, rec in ipairs(batch) do
    local r = redis.call('HMGET', rec, 's', 't', 'a', 'l', 'e', 'o', 'p', 'q', 'k', 'n')
    local state, lease, expires = tonumber(r[1]), tonumber(r[4]), tonumber(r[5])
    if state ~= 0 or not live(state, lease, expires, now) then
      redis.call('ZREM', leases, rec)
    else
      kept = kept + 1
      if r[9] and r[10] then
        if mode == 'expired' then
          if lease <= now and found < limit then
            found = found + 1
            for i = 9, 10 do out[#out + 1] = r[i] end
            for i = 2, 8 do out[#out + 1] = r[i] or false end
          end
        else
          local created = tonumber(r[6])
          if oldest == nil or created < oldest_created then
            oldest, oldest_created = r, created
          end
        end
      end
    end
  end
  from = from + kept
end
if oldest ~= nil then
  for i = 9, 10 do out[#out + 1] = oldest[i] end
  for i = 2, 8 do out[#out + 1] = oldest[i] or false end
end
return out
