# javac and java
NEEDS="javac java"
inside() {
mkdir -p src && printf 'public class H { public static void main(String[] a) { System.out.println("java ok"); } }\n' > src/H.java
javac -d classes src/H.java && java -cp classes H | grep -q 'java ok'
}
