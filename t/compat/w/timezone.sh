# timezone data
NEEDS="date"
inside() {
TZ=America/New_York date +%Z | grep -qE 'E[SD]T'
}
