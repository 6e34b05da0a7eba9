# zip and unzip
NEEDS="zip unzip"
inside() {
mkdir -p z && echo x > z/f && zip -qr z.zip z && mkdir u && cd u && unzip -q ../z.zip && test -f z/f
}
