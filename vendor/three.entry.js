// What the bench's machine (static/js/machine3d.js) takes from three.js, and nothing else: the
// entry of the minified bundle vendor/three.min.js (`npm run build:three`, esbuild from the
// three pinned in package-lock.json). tests/test_machine.py checks that the bundle is what this
// entry builds to and that it exports every name machine3d.js uses.
export { Box3, BoxGeometry, BufferAttribute, BufferGeometry, CanvasTexture, Color, ConeGeometry, CylinderGeometry, ExtrudeGeometry, Group, InstancedMesh, Matrix4, Mesh, MeshBasicMaterial, MeshMatcapMaterial, Object3D, OctahedronGeometry, Path, PerspectiveCamera, Raycaster, SRGBColorSpace, Scene, Shape, SphereGeometry, Vector2, Vector3, WebGLRenderer } from "three";
