# every fixture log (one per signature family, real wordings) through explain:
# ranked causes, captured values, matched lines and the exit status (1 = matched, 0 = clean)
for f in "$FIXTURES"/logs/*.log; do
	run explain "$f"
done
