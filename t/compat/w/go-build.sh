# go build of a module without dependencies
NEEDS="go"
inside() {
mkdir g && cd g && go mod init example.com/g >/dev/null 2>&1 && printf 'package main\nimport "fmt"\nfunc main() { fmt.Println("go ok") }\n' > m.go && go build -o g . && ./g | grep -q 'go ok'
}
