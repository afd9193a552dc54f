#!/usr/bin/env bash
# A bohnarena bot in bash: proof that the JSON-lines protocol needs no Python.
# It plants every card in the last field the engine lists as legal, asks to
# plant a second card whenever it has a field of that variety, and otherwise
# plays the engine's default answer (sent with every request as "default").
# Run it in a league as:  mine = { command = ["bash", "bots/first_choice.sh"] }
while IFS= read -r line; do
  case "$line" in
    *'"type":"start"'*)
      echo '{"decisions":["plant","make_room","plant_second"]}' ;;
    *'"type":"end"'*)
      ;;
    *'"decision":"plant"'*|*'"decision":"make_room"'*)
      options=${line#*\"options\":[}
      options=${options%%]*}
      echo "{\"answer\":${options##*,}}" ;;
    *'"decision":"plant_second"'*)
      hand=${line#*\"hand\":[}
      front=${hand%%[],]*}
      seat=${line#*\"seat\":}
      seat=${seat%%,*}
      fields=${line#*\"fields\":[}
      mine=$(printf '%s' "$fields" | sed -E 's/\]\],\[\[/\n/g' | sed -n "$((seat + 1))p")
      if printf '%s' "$mine" | grep -Eq "(^|\[)\[?$front,[1-9]"; then
        echo '{"answer":true}'
      else
        echo '{"answer":false}'
      fi ;;
    *)
      default=${line#*\"default\":}
      echo "{\"answer\":${default%\}}}" ;;
  esac
done
