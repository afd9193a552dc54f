#!/usr/bin/env bash
# A dice-game bot in bash: proof that the JSON-lines protocol needs no Python.
# It keeps the first die of every roll and, in its fulfilment windows, plays
# the engine's default answer (sent with every request as "default", the
# last key): fulfil while it can, redeem a full card.
# Run it in a league as:  mine = { command = ["bash", "bots/wuerfel_first.sh"] }
while IFS= read -r line; do
  case "$line" in
    '{"type":"start"'*)
      echo '{"decisions":["keep","harvest"]}' ;;
    '{"type":"end"'*)
      ;;
    '{"type":"decide","decision":"keep"'*)
      echo '{"answer":{"dice":[0],"stop":false}}' ;;
    *)
      default=${line##*\"default\":}
      echo "{\"answer\":${default%\}}}" ;;
  esac
done
