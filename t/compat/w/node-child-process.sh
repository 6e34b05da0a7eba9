# child_process from node
NEEDS="node"
inside() {
node -e 'const c = require("child_process"); process.exit(c.execSync("echo child ok").toString().includes("child ok") ? 0 : 1)'
}
