# Sourced by scripts/device/run.sh on the GPU machine (see prepare.sh).
G=$PWD/.gpu/root/usr
L=$G/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nv=$(ls /usr/local/nvidia/lib64/libnvidia-opencl.so.1 /usr/local/nvidia/lib/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null | head -1)
mkdir -p /tmp/icd && echo "$nv" > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
CMAKE_DEPS="-DOpenCL_INCLUDE_DIR=$G/include -DOpenCL_LIBRARY=$L/libOpenCL.so -DCATENA_CJSON_INCLUDE_DIR=$G/include -DCATENA_CJSON_LIBRARY=$L/libcjson.so -DCMAKE_DISABLE_FIND_PACKAGE_CLBlast=ON -DCATENA_CLBLAST_LIBRARY=$L/libclblast.so -DCATENA_CLBLAST_INCLUDE=$G/include"
